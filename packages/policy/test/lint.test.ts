import { describe, expect, it } from "vitest";
import { DEFAULT_RULES_TEXT, lintRules } from "../src/index.js";
import { HOME } from "./helpers.js";

const lint = (text: string) => lintRules(text, { file: "p.jsonc", home: HOME });

describe("lint", () => {
  it("finds nothing wrong with the default rules", () => {
    expect(lint(DEFAULT_RULES_TEXT)).toEqual({ errors: [], warnings: [] });
  });

  it("warns about rules shadowed by a later rule", () => {
    const { warnings } = lint(`{\n "read_file": {"*.env": "deny", "*": "allow"},\n "shell_exec": {"git status": "allow", "git *": "ask"}\n}`);
    expect(warnings.map((w) => [w.line, w.message.split(" is shadowed")[0]])).toEqual([
      [2, 'read_file "*.env" (deny)'],
      [3, 'shell_exec "git status" (allow)'],
    ]);
  });

  it("warns that a final top-level * shadows everything before it", () => {
    const { warnings } = lint(`{"read_file": {"*.env": "deny"}, "*": "allow"}`);
    expect(warnings[0]!.message).toMatch(/shadowed by \* "\*" \(allow\)/);
  });

  it("warns about patterns that can never match", () => {
    const { warnings } = lint(
      [
        "{",
        ' "read_file": {"../x": "deny", "src/": "deny", "a//b": "deny"},',
        ' "shell_exec": {" ls": "allow", "git  push": "deny"},',
        ' "my_mcp_tool": {"foo": "allow"}',
        "}",
      ].join("\n"),
    );
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/"\.\.\/x" can never match/),
      expect.stringMatching(/"src\/" can never match/),
      expect.stringMatching(/"a\/\/b" can never match/),
      expect.stringMatching(/" ls" can never match/),
      expect.stringMatching(/"git {2}push" can never match/),
      expect.stringMatching(/my_mcp_tool is matched by its name only/),
    ]);
  });

  it("reports errors with their positions", () => {
    expect(lint(`{\n  "x": "nope"\n}`).errors).toEqual([{ line: 2, column: 8, message: expect.stringMatching(/unknown action "nope"/) }]);
  });
});
