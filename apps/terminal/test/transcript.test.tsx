import fs from "node:fs";
import path from "node:path";
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { CALL_MARKS, TranscriptItem } from "../src/components/transcript.js";
import type { Item } from "../src/session-view.js";

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

const frame = (item: Item) => {
  const r = render(<TranscriptItem item={item} />);
  cleanup = r.unmount;
  return r.lastFrame() ?? "";
};

describe("the transcript", () => {
  it("marks calls as docs/terminal.md says", () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../../../docs/terminal.md"), "utf8");
    const listed = /^Call marks: (.*)\.$/m.exec(doc)![1]!;
    const documented = Object.fromEntries(
      listed.split(", ").map((entry) =>
        entry
          .match(/^`(.+)` (\w+)$/)!
          .slice(1)
          .reverse(),
      ),
    );
    expect(documented).toEqual(Object.fromEntries(Object.entries(CALL_MARKS).map(([status, { mark }]) => [status, mark])));
    expect(frame({ kind: "call", callId: "c", title: "shell_exec ls", status: "cancelled", because: "cancelled by ada", output: null })).toBe(
      `${CALL_MARKS.cancelled.mark} cancelled shell_exec ls · cancelled by ada`,
    );
  });

  it("cuts output lines to the width instead of wrapping them; a long call line wraps under its text, not its mark", () => {
    const shown = frame({
      kind: "call",
      callId: "c",
      title: "shell_exec " + "word ".repeat(30).trim(),
      status: "done",
      because: null,
      output: "x".repeat(300),
    });
    const lines = shown.split("\n");
    expect(lines.every((l) => l.length <= 100)).toBe(true);
    expect(lines.filter((l) => l.startsWith("  x"))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(/^ {2}x+…$/);
    expect(lines[1]).toMatch(/^ {7}word/);
  });
});
