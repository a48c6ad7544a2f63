import { describe, expect, it } from "vitest";
import { loadShellParser } from "../src/index.js";
import { context, ruleset, shell } from "./helpers.js";

await loadShellParser();

const RULES = context({ static: ruleset(`{ "*": "ask", "read_file": "allow", "shell_exec": { "*": "ask", "git *": "allow", "man *": "allow" } }`) });

describe("a pager set for a command", () => {
  it.each(["GIT_PAGER=cat git log --oneline -5", "PAGER=cat git log -3", "PAGER='cat' git show --stat", "MANPAGER=cat man ls"])(
    "%j is allowed: cat only passes the output on",
    (command) => {
      const d = shell(command, RULES);
      expect(d.action, d.reason).toBe("allow");
    },
  );

  it.each([
    "GIT_PAGER=./evil git log",
    "PAGER='cat -v; sh' git log",
    "GIT_PAGER=/tmp/cat git log",
    'PAGER="$P" git log',
    "GIT_PAGER= git log",
    "EDITOR=cat git commit",
  ])("%j asks: the variable may choose what runs", (command) => {
    const d = shell(command, RULES);
    expect(d.action, d.reason).toBe("ask");
  });
});
