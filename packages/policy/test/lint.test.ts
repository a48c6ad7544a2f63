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

  it("warns once about a tool name no worker has, with the built-in name it is probably a slip for", () => {
    const { warnings } = lint(
      `{\n "Read_File": {"*.env": "deny", "*": "allow"},\n "write_files": "ask",\n "shell": "ask",\n "bash": "ask",\n "github_*": "ask",\n "linear_search-issues": "allow"\n}`,
    );
    expect(warnings.filter((w) => w.message.startsWith("no worker")).map((w) => [w.line, w.message])).toEqual([
      [2, 'no worker has a tool named "Read_File": did you mean read_file?'],
      [3, 'no worker has a tool named "write_files": did you mean write_file?'],
      [4, 'no worker has a tool named "shell": did you mean shell_exec?'],
      [5, expect.stringMatching(/^no worker has a tool named "bash": the built-in tools are read_file, .*; MCP tools are named \{server\}_\{tool\}$/)],
    ]);
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
