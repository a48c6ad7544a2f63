import type { SessionInfo } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { present, type PresentationSources } from "../src/presentation.js";

const session = { id: "s1", workerId: "w1" } as SessionInfo;
const sources = (current: string | null): PresentationSources => ({ workDir: () => "/work", currentText: async () => current });

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
