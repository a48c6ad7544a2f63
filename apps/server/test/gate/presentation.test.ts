import type { SessionInfo } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { present, type PresentationSources } from "../../src/gate/presentation.js";

const session = { id: "s1", workerId: "w1" } as SessionInfo;
const sources = (current: string | null): PresentationSources => ({
  workDir: () => "/work",
  currentText: async () => current ?? { unread: "read_file does not allow it now" },
});

describe("what a person sees of a write or an edit", () => {
  it("is a diff against the current file when read_file allows reading it", async () => {
    const shown = await present(sources("a\nb\n"), session, { tool: "edit_file", args: { path: "x.txt", old_string: "b", new_string: "B" } });
    expect(shown).toMatchObject({ kind: "diff" });
    expect(shown!.content).toContain("--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n");
  });

  it("is still a diff of the call's own text when the current file may not be shown", async () => {
    const write = await present(sources(null), session, { tool: "write_file", args: { path: "x.txt", content: "new\ntext\n" } });
    expect(write).toMatchObject({ kind: "diff" });
    expect(write!.content).toMatch(/^x\.txt: the current content is not shown \(read_file does not allow it now\); the whole new content:\n/);
    expect(write!.content).toContain("+new\n+text\n");
    const edit = await present(sources(null), session, { tool: "edit_file", args: { path: "x.txt", old_string: "old line", new_string: "new line" } });
    expect(edit!.content).toContain("the text it replaces and its replacement:");
    expect(edit!.content).toContain("-old line\n\\ No newline at end of file\n+new line");
  });
});

describe("what a person sees is safe to show", () => {
  it("escapes what a screen would interpret, counts it and names look-alike words", async () => {
    const command = `mv build .trash${"\b".repeat(15)}notes.txt notes.md; c\u0430t x`;
    const shown = await present(sources(""), session, { tool: "shell_exec", args: { command } });
    expect(shown).toMatchObject({
      kind: "command",
      content: `mv build .trash${"\\b".repeat(15)}notes.txt notes.md; c\u0430t x`,
      hidden: 15,
      hiddenKinds: ["\\b"],
      lookAlikes: [{ word: "c\\u0430t", scripts: ["Latin", "Cyrillic"] }],
      truncated: false,
    });
  });

  it("shows a diff line hidden behind backspaces, and MCP-style arguments as JSON that parses back", async () => {
    const hiding = `fsmonitor = "rm -rf build"${"\b".repeat(26)}editor = vim`;
    const diff = await present(sources("[core]\n"), session, {
      tool: "edit_file",
      args: { path: "cfg", old_string: "[core]\n", new_string: `[core]\n${hiding}\n` },
    });
    expect(diff!.content).toContain(`+fsmonitor = "rm -rf build"${"\\b".repeat(26)}editor = vim`);
    expect(diff!.hidden).toBe(26);
    const args = { note: "ok\u202e\u2066 x", n: 1 };
    const text = await present(sources(""), session, { tool: "other", args });
    expect(text!.content).toContain("\\u202E\\u2066");
    expect(JSON.parse(text!.content)).toEqual(args);
    expect(text!.hidden).toBe(2);
  });

  it("leaves out what length would push out of sight, says what and where, and gives the whole on request", async () => {
    const command = `echo ok${" ".repeat(5000)}; mv build .trash${"\n".repeat(400)}rm -rf notes`;
    const cut = await present(sources(""), session, { tool: "shell_exec", args: { command } });
    expect(cut!.content).toBe(
      "echo ok ⟦5,000 spaces⟧ ; mv build .trash\n⟦399 blank lines⟧\nrm -rf notes\n" + `… (cut: ${command.length} characters, 401 lines in all)`,
    );
    expect(cut!.cuts).toEqual([
      { line: 1, what: "5,000 spaces" },
      { line: 2, lastLine: 400, what: "399 blank lines" },
    ]);
    expect(cut!.truncated).toBe(true);
    const whole = await present(sources(""), session, { tool: "shell_exec", args: { command } }, true);
    expect(whole).toMatchObject({ content: command, truncated: false });
  });
});
