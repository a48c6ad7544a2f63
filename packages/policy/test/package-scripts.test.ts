import { describe, expect, it } from "vitest";
import { loadShellParser } from "../src/index.js";
import { context, ruleset, shell } from "./helpers.js";

await loadShellParser();

// pnpm and yarn run the script or the package's program a word names when it is none of their commands.
const TOOLS = context({
  static: ruleset(`{ "*": "ask", "read_file": "allow", "write_file": "allow",
    "shell_exec": { "*": "ask", "pnpm *": "allow", "yarn *": "allow", "vitest *": "allow", "tsc *": "allow", "pnpm run deploy *": "deny" } }`),
});

describe("pnpm NAME and yarn NAME", () => {
  it.each(["pnpm vitest run src/a.test.ts", "pnpm tsc -b", "yarn vitest run", "pnpm -r tsc --noEmit"])(
    "%j is allowed: the program it names is allowed on its own",
    (command) => {
      const d = shell(command, TOOLS);
      expect(d.action, d.reason).toBe("allow");
    },
  );

  it("a program no rule allows asks, as under pnpm exec", () => {
    const d = shell("pnpm eslint --fix .", TOOLS);
    expect(d.action, d.reason).toBe("ask");
    expect(d.subcommands.map((v) => v.subject)).toContain("eslint --fix .");
  });

  it("a rule written for the script of that name meets it", () => {
    const d = shell("pnpm deploy --prod", TOOLS);
    expect(d.action, d.reason).toBe("deny");
    expect(d.reason).toContain('"pnpm run deploy *": deny');
  });

  it("a program it runs is judged like any command: a shell's script is read", () => {
    const open = context({ static: ruleset(`{ "*": "ask", "shell_exec": { "*": "allow", "rm *": "deny" } }`) });
    expect(shell("pnpm sh -c 'rm -rf build'", open).action).toBe("deny");
    expect(shell("pnpm exec rm x", open).action).toBe("deny");
  });

  it("npm has no such commands: an unknown one asks", () => {
    const d = shell("npm vitest run", context({ static: ruleset(`{ "shell_exec": { "*": "ask", "npm *": "allow", "vitest *": "allow" } }`) }));
    expect(d.action).toBe("ask");
    expect(d.reason).toContain("not a npm subcommand");
  });
});
