import { beforeAll, describe, expect, it } from "vitest";
import { loadShellParser } from "../src/index.js";
import { MAX_SHELL_DEPTH, MAX_SHELL_OPERATORS } from "../src/shell/limits.js";
import { parseShell } from "../src/shell/parser.js";
import { context, ruleset, shell } from "./helpers.js";

beforeAll(() => loadShellParser());

const allowAll = context({ static: ruleset(`{ "*": "allow" }`) });
const nested = (n: number) => "echo " + "$(".repeat(n) + "x" + ")".repeat(n);

describe("commands too large or too deep to analyse", () => {
  it("asks with the reason for a command nested thousands of levels deep, where the analysis would run out of stack", () => {
    const d = shell(nested(3000), allowAll);
    expect(d.action).toBe("ask");
    expect(d.reason).toMatch(/nests \d+ levels deep, more than the 600/);
  });

  it("asks with the reason for a pipeline too long to parse in bounded time", () => {
    const d = shell("a|".repeat(30_000) + "b", allowAll);
    expect(d.action).toBe("ask");
    expect(d.reason).toContain(`more than ${MAX_SHELL_OPERATORS} pipes and lists`);
  });

  it("asks for deep lists and groups, and for a too-deep script inside a heredoc", () => {
    expect(shell("a&&".repeat(1000) + "b", allowAll).action).toBe("ask");
    expect(shell("{ ".repeat(1000) + "x;" + " };".repeat(1000), allowAll).action).toBe("ask");
    expect(shell(`bash <<EOF\n${nested(1000)}\nEOF`, allowAll).action).toBe("ask");
  });

  it("still decides commands just inside the bounds, and a denied program in them stays denied", () => {
    const deep = context({ static: ruleset(`{ "*": "allow", "shell_exec": { "*": "allow", "rm *": "deny" } }`) });
    const echoes = (n: number, inner: string) => "echo " + "$(echo ".repeat(n) + inner + ")".repeat(n);
    expect(parseShell(echoes(120, "x")).depth).toBeLessThan(MAX_SHELL_DEPTH);
    expect(shell(echoes(120, "x"), allowAll).action).toBe("allow");
    expect(shell(echoes(120, "$(rm -rf x)"), deep).action).toBe("deny");
    expect(shell("a|".repeat(MAX_SHELL_OPERATORS - 1) + "rm -rf x", deep).action).toBe("deny");
  });
});
