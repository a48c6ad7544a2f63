import { describe, expect, it } from "vitest";
import { editableText, editedArguments } from "../src/edited-arguments.js";
import { EditedArgumentsError } from "../src/errors.js";

describe("the text a person edits for a call", () => {
  it("a shell command is edited as itself, keeping the other arguments", () => {
    const args = JSON.stringify({ command: "rm -rf build dist", timeoutMs: 5000 });
    expect(editableText("shell_exec", args)).toBe("rm -rf build dist");
    expect(editedArguments("shell_exec", args, "rm -rf dist\n")).toEqual({ command: "rm -rf dist", timeoutMs: 5000 });
    expect(() => editedArguments("shell_exec", args, "  \n")).toThrow(new EditedArgumentsError("the edited command is empty"));
  });

  it("any other call is edited as its arguments in JSON, whole", () => {
    const args = JSON.stringify({ path: "a.txt", content: "one\ntwo" });
    expect(editableText("write_file", args)).toBe('{"path":"a.txt","content":"one\\ntwo"}');
    expect(editableText("write_file", args, true)).toBe('{\n  "path": "a.txt",\n  "content": "one\\ntwo"\n}');
    expect(editedArguments("write_file", args, '{"path":"b.txt","content":"x"}')).toEqual({ path: "b.txt", content: "x" });
    expect(() => editedArguments("write_file", args, "[1]")).toThrow("the edited arguments must be a JSON object");
    expect(() => editedArguments("write_file", args, "{path")).toThrow(/^the edited arguments are not JSON: /);
  });
});
