import type { EventOf } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { approval } from "../../terminal/test/fixtures.js";
import { approvalCard, approvalKeyboard, INLINE_CHARS, outcomeLine, rememberedPatterns } from "../src/approval-card.js";

const resolved = (over: Partial<EventOf<"tool_approval_resolved">>): EventOf<"tool_approval_resolved"> => ({
  type: "tool_approval_resolved",
  sessionId: "s1",
  at: "2026-11-21T00:00:00.000Z",
  approvalId: "a1",
  callId: "c1",
  outcome: "approved",
  by: "ada",
  scope: "once",
  pattern: null,
  feedback: null,
  ...over,
});

describe("approval cards", () => {
  it("show the command, its directory, why it asks, its place in the batch and the pattern always would save", () => {
    const card = approvalCard(approval({ batch: { index: 1, total: 3, remaining: [] } }));
    expect(card.attach).toBe(false);
    expect(card.text).toContain("<pre>$ git push origin feature-");
    expect(card.text).toContain("in <code>/work/project</code>");
    expect(card.text).toContain("Why: the rules ask for shell commands");
    expect(card.text).toContain("Call 2 of 3 in this batch");
    expect(card.text).toContain("Always would save: <code>git push *</code>");
  });

  it("escape what the model wrote, so that it cannot forge markup", () => {
    const card = approvalCard(
      approval({
        arguments: JSON.stringify({ command: "echo '<b>x</b> & y'" }),
        presentation: { kind: "command", content: "echo '<b>x</b> & y'", truncated: false, fullSize: 18 },
      }),
    );
    expect(card.text).toContain("echo '&lt;b&gt;x&lt;/b&gt; &amp; y'");
    expect(card.text).not.toContain("<b>x</b>");
  });

  it("cut a long diff at a line end and send the whole as a file", () => {
    const diff = Array.from({ length: 400 }, (_, i) => `+line ${i}`).join("\n");
    const card = approvalCard(approval({ toolName: "write_file", presentation: { kind: "diff", content: diff, truncated: false, fullSize: diff.length } }));
    expect(card.attach).toBe(true);
    const shown = /<pre>([^]*)<\/pre>/.exec(card.text)![1]!;
    expect(shown.length).toBeLessThanOrEqual(INLINE_CHARS);
    expect(diff.startsWith(shown)).toBe(true);
    expect(diff[shown.length]).toBe("\n");
    expect(card.text).toContain(`the whole diff (${diff.length} characters) follows as a file`);
  });

  it("offer neither Session nor Always where the server takes once only, and say why", () => {
    const labels = (patterns: string[]) =>
      approvalKeyboard("k1", patterns)
        .inline_keyboard.flat()
        .map((b) => b.text);
    const critical = approval({ decision: { ...approval().decision, critical: "fetch and execute" } });
    expect(approvalCard(critical).text).toContain("<i>Critical: approve once only.</i>");
    expect(approvalCard(critical).text).not.toContain("Always would save");
    expect(labels(rememberedPatterns(critical))).toEqual(["Approve", "Deny"]);
    const unsaved = approval({ suggestedPatterns: [], suggestedPattern: "" });
    expect(approvalCard(unsaved).text).toContain("<i>No narrow pattern: approve once only.</i>");
    expect(labels(rememberedPatterns(unsaved))).toEqual(["Approve", "Deny"]);
    expect(labels(rememberedPatterns(approval()))).toEqual(["Approve", "Session: git push *", "Always: git push *", "Deny"]);
  });
});

describe("how an approval ended", () => {
  it("names the answer, its scope and who gave it", () => {
    expect(outcomeLine(resolved({}))).toBe("<b>✅ Approved once by ada</b>");
    expect(outcomeLine(resolved({ scope: "always", pattern: "git push *" }))).toBe("<b>✅ Approved always by ada</b>: saved <code>git push *</code>");
    expect(outcomeLine(resolved({ outcome: "denied", feedback: "not on Fridays" }))).toBe("<b>⛔ Denied by ada</b>: “not on Fridays”");
  });

  it("says so when it timed out or was cancelled", () => {
    expect(outcomeLine(resolved({ outcome: "timed_out", by: null, scope: null }))).toMatch(/Timed out.*nobody answered in time, so the call was denied/);
    expect(outcomeLine(resolved({ outcome: "cancelled", by: null, scope: null }))).toMatch(/Cancelled.*aborted or its worker went away/);
  });
});
