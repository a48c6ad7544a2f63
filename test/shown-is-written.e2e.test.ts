import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Cluster } from "./support/cluster.js";

// A server and a worker as real processes for each case.
vi.setConfig({ testTimeout: 60_000 });

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

/** The presentation a person is shown for the first call of `calls` that asks, under rules in which every write asks. */
async function shownFor(calls: unknown[], files: Record<string, string | Buffer> = {}) {
  cluster = await Cluster.start({ rules: `{ "*": "ask", "read_file": "allow" }` });
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(cluster.workDir, name), content);
  const client = cluster.client();
  const { id, events } = await cluster.promptedSession(client, [{ text: "Writing.", toolCalls: calls }, { text: "finished" }]);
  const ask = await events.next("tool_approval_required");
  return { client, id, events, ask, content: ask.presentation!.content };
}

describe("a diff names the file the call writes, on one line", () => {
  it("a path holding newlines and `..` cannot draw a diff of another file above the real one", async () => {
    const forged = ["README.md", "+++ b\u2215README.md", "@@ -1,2 +1,3 @@", " # Project", " hello", "+see CONTRIBUTING.md"].join("\n");
    const { content } = await shownFor([{ tool: "write_file", args: { path: `${forged}\n/../package.json`, content: '{"scripts":{"test":"sh x.sh"}}\n' } }], {
      "README.md": "# Project\nhello\n",
    });
    const lines = content.split("\n");
    expect(lines.slice(0, 3)).toEqual(["--- a/package.json", "+++ b/package.json", "@@ -0,0 +1,1 @@"]);
    expect(lines).not.toContain(" hello");
    expect(lines).not.toContain("+see CONTRIBUTING.md");
  });

  it("a file name with a newline of its own is shown with the newline escaped, and marked", async () => {
    const { ask } = await shownFor([{ tool: "write_file", args: { path: "notes\n+++ b/README.md", content: "x\n" } }]);
    const lines = ask.presentation!.content.split("\n");
    expect(lines[0]).toBe("--- a/notes\\n+++ b/README.md");
    expect(ask.presentation!.hidden).toBeGreaterThan(0);
  });
});

describe("a file whose content the worker cannot read is never shown as new, or as an edit that fails", () => {
  const big = `${"# a line of data\n".repeat(300_000)}RUN=safe\n`;

  it("an edit of a 5 MB file shows the change it makes, says why the file is not shown, and the edit it shows is what is written", async () => {
    const { client, id, events, content } = await shownFor(
      [{ tool: "edit_file", args: { path: "big.txt", old_string: "RUN=safe", new_string: "RUN=changed" } }],
      {
        "big.txt": big,
      },
    );
    expect(content).not.toContain("would fail");
    expect(content).toContain("big.txt: the current content is not shown (the worker could not read it: big.txt is larger than");
    expect(content).toMatch(/^-RUN=safe$/m);
    expect(content).toMatch(/^\+RUN=changed$/m);
    const ask = events.of("tool_approval_required")[0]!;
    expect((await client.tool.approve.mutate({ sessionId: id, approvalId: ask.approvalId, digest: ask.digest })).applied).toBe(true);
    await events.next("turn_ended");
    expect(fs.readFileSync(path.join(cluster!.workDir, "big.txt"), "utf8").endsWith("RUN=changed\n")).toBe(true);
  });

  it("a write over a 5 MB file does not look like the making of a new file", async () => {
    const { content } = await shownFor([{ tool: "write_file", args: { path: "big.txt", content: "small\n" } }], { "big.txt": big });
    expect(content).toContain("big.txt: the current content is not shown (the worker could not read it:");
  });
});

describe("an edit never rewrites bytes it does not show", () => {
  it("a file that is not UTF-8 text is shown by the change alone, and the edit is refused with the file untouched", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a, ...Buffer.from("RUN=safe\n")]);
    const { client, id, events, ask, content } = await shownFor(
      [{ tool: "edit_file", args: { path: "data.bin", old_string: "RUN=safe", new_string: "RUN=ok" } }],
      { "data.bin": bytes },
    );
    expect(content).toContain("data.bin: the current content is not shown (the worker could not read it: data.bin is not UTF-8 text)");
    expect(content).not.toContain("\uFFFD");
    expect((await client.tool.approve.mutate({ sessionId: id, approvalId: ask.approvalId, digest: ask.digest })).applied).toBe(true);
    const result = await events.next("tool_result");
    expect(result.output).toContain("the file is not UTF-8 text");
    expect(fs.readFileSync(path.join(cluster!.workDir, "data.bin")).equals(bytes)).toBe(true);
  });
});
