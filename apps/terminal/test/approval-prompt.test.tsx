import { ANSWER_PAUSE_MS, type ApprovalRequired } from "@gatehouse/protocol";
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalPrompt } from "../src/components/approval-prompt.js";
import type { Answer } from "../src/session-controller.js";
import { approval, decision, tick, untilAnswerable } from "./fixtures.js";

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

/** Renders the prompt over a queue and records what it answers and what it asks to view; with `answerable`, once its keys are shown. */
async function prompt(queue: ApprovalRequired[], answerable = true) {
  const answers: [string, Answer][] = [];
  const viewed: string[] = [];
  const r = render(<ApprovalPrompt queue={queue} onAnswer={(a, answer) => answers.push([a.approvalId, answer])} onView={(a) => viewed.push(a.approvalId)} />);
  cleanup = r.unmount;
  await tick();
  const frame = () => r.lastFrame() ?? "";
  if (answerable) await untilAnswerable(frame);
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      await tick();
    }
  };
  return { answers, viewed, press, frame };
}

describe("the approval prompt", () => {
  it("takes no answer in its first moment, so that a key pressed twice for the call before answers nothing; v shows the call at once", async () => {
    const a = approval();
    const p = await prompt([a], false);
    expect(p.frame()).toContain("keys in a moment");
    expect(p.frame()).not.toContain("y once");
    await p.press("y", "s", "N", "v");
    expect(p.answers).toEqual([]);
    expect(p.viewed).toEqual([a.approvalId]);
    await new Promise((r) => setTimeout(r, ANSWER_PAUSE_MS));
    await tick();
    expect(p.frame()).toMatch(/y once/);
    await p.press("y");
    expect(p.answers).toEqual([[a.approvalId, { kind: "approve", scope: "once" }]]);
  });

  it("shows the tool, its tier, why it asks, the command with its directory and the keys", async () => {
    const p = await prompt([approval()]);
    expect(p.frame()).toContain("shell_exec tier exec");
    expect(p.frame()).toContain("why: the rules ask for shell commands");
    expect(p.frame()).toContain('rule: static rule shell_exec "*" (/data/permissions.jsonc:11:5)');
    expect(p.frame()).toContain("in /work/project");
    expect(p.frame()).toContain(`$ git push origin feature-`);
    expect(p.frame()).toMatch(/y once +s session or a always \(git push \*\) +n deny with feedback +N deny hard +v view/);
  });

  it("a critical call offers once and the denials only, says so, and takes neither s nor a", async () => {
    const a = approval({ decision: decision({ critical: "rm -r on / or the home directory" }), suggestedPattern: "", suggestedPatterns: [] });
    const p = await prompt([a]);
    expect(p.frame()).toContain("critical: rm -r on / or the home directory");
    expect(p.frame()).toMatch(/y once +\(critical: approve once only\) +n deny with feedback +N deny hard +v view/);
    expect(p.frame()).not.toMatch(/session|always/);
    await p.press("s", "a");
    expect(p.frame()).not.toContain("always allow");
    expect(p.answers).toEqual([]);
    await p.press("y");
    expect(p.answers).toEqual([[a.approvalId, { kind: "approve", scope: "once" }]]);
  });

  it("a critical call with patterns still offers once only (the server would refuse anything else)", async () => {
    const p = await prompt([approval({ decision: decision({ critical: "fetch and execute" }) })]);
    expect(p.frame()).toMatch(/y once +\(critical: approve once only\) +n deny/);
  });

  it("shows a diff line by line and says how to see the rest of a long one", async () => {
    const content = ["--- a/x.ts", "+++ b/x.ts", "@@ -1,1 +1,1 @@", "-old", "+new", ...Array.from({ length: 40 }, (_, i) => ` line ${i}`)].join("\n");
    const p = await prompt([approval({ toolName: "edit_file", presentation: { kind: "diff", content, truncated: true, fullSize: 99_000 } })]);
    expect(p.frame()).toContain("-old");
    expect(p.frame()).toContain("+new");
    // The preview gives a row to the mark, which names the lines it leaves out.
    expect(p.frame()).toMatch(/… 30 more line\(s\); press v to view the whole \(99000 characters\)/);
    expect(p.frame()).toMatch(/⚠ left out of sight: 30 more lines at lines 16-45/);
  });

  it.each([
    ["y", { kind: "approve", scope: "once" }],
    ["s", { kind: "approve", scope: "session" }],
    ["N", { kind: "deny", mode: "hard" }],
  ] as const)("key %s answers %j", async (key, answer) => {
    const a = approval();
    const p = await prompt([a]);
    await p.press(key);
    expect(p.answers).toEqual([[a.approvalId, answer]]);
  });

  it("v asks to view the whole presentation and answers nothing", async () => {
    const a = approval();
    const p = await prompt([a]);
    await p.press("v");
    expect(p.viewed).toEqual([a.approvalId]);
    expect(p.answers).toEqual([]);
  });

  it("a shows the suggested pattern for editing; Enter saves the edited pattern as always", async () => {
    const a = approval();
    const p = await prompt([a]);
    await p.press("a");
    expect(p.frame()).toMatch(/always allow this pattern \(saved to the rules file\): +│\n│ › git push \* +│\n│ Enter saves, Esc goes back/);
    await p.press("\x7f", "origin *", "\r");
    expect(p.answers).toEqual([[a.approvalId, { kind: "approve", scope: "always", patterns: ["git push origin *"] }]]);
  });

  it("always shows every pattern it saves; ↑/↓ picks the one edited, an emptied one is dropped, Enter saves them all", async () => {
    const patterns = ["echo *", "ls *", "grep *"];
    const a = approval({ arguments: JSON.stringify({ command: "echo hi > x && ls -l x | grep x" }), suggestedPattern: "echo *", suggestedPatterns: patterns });
    const p = await prompt([a]);
    expect(p.frame()).toMatch(/s session or a always \(echo \*, ls \*, grep \*\)/);
    await p.press("a");
    expect(p.frame()).toMatch(/always allow these 3 patterns \(saved to the rules file\):[^\n]*\n│ › echo \* +│\n│ {3}ls \* +│\n│ {3}grep \* +│/);
    expect(p.frame()).toContain("↑/↓ picks the one to edit, Enter saves, Esc goes back");
    await p.press("\x7f", "hi *", "\x1b[B", "\x7f", "-l *", "\x1b[B", "\x7f\x7f\x7f\x7f\x7f\x7f", "\x1b[A");
    expect(p.frame()).toMatch(/│ {3}echo hi \* +│\n│ › ls -l \* +│\n│ {3} +│/);
    expect(p.answers).toEqual([]);
    await p.press("\r");
    expect(p.answers).toEqual([[a.approvalId, { kind: "approve", scope: "always", patterns: ["echo hi *", "ls -l *"] }]]);
  });

  it("saves nothing while every pattern is empty", async () => {
    const a = approval();
    const p = await prompt([a]);
    await p.press("a", "\x7f".repeat(10), "\r");
    expect(p.answers).toEqual([]);
    await p.press("ls *", "\r");
    expect(p.answers).toEqual([[a.approvalId, { kind: "approve", scope: "always", patterns: ["ls *"] }]]);
  });

  it("offers neither session nor always when the server suggests no pattern, and says why", async () => {
    const a = approval({ suggestedPattern: "", suggestedPatterns: [] });
    const p = await prompt([a]);
    expect(p.frame()).toMatch(/y once +\(no narrow pattern: approve once only\) +n deny with feedback/);
    await p.press("a", "s");
    expect(p.frame()).not.toContain("always allow");
    expect(p.answers).toEqual([]);
  });

  it("Esc leaves the pattern editor without answering, and the keys work again", async () => {
    const a = approval();
    const p = await prompt([a]);
    await p.press("a", "\x1b");
    expect(p.frame()).toContain("y once");
    expect(p.answers).toEqual([]);
    await p.press("y");
    expect(p.answers).toEqual([[a.approvalId, { kind: "approve", scope: "once" }]]);
  });

  it("n opens a feedback line; Enter denies softly with the feedback", async () => {
    const a = approval();
    const p = await prompt([a]);
    await p.press("n");
    expect(p.frame()).toContain("feedback for the model (Enter denies, Esc goes back)");
    await p.press("use a pull request instead", "\r");
    expect(p.answers).toEqual([[a.approvalId, { kind: "deny", mode: "soft", feedback: "use a pull request instead" }]]);
  });

  it("an empty feedback line denies softly without feedback; typed keys are text, not answers", async () => {
    const a = approval();
    const p = await prompt([a]);
    await p.press("n", "y", "\x7f", "\r");
    expect(p.answers).toEqual([[a.approvalId, { kind: "deny", mode: "soft" }]]);
  });

  it("a queue shows which approval of how many, the batch context, and what waits after it", async () => {
    const first = approval({ batch: { index: 1, total: 3, remaining: [{ toolName: "read_file", arguments: JSON.stringify({ path: "notes.md" }) }] } });
    const second = approval({ toolName: "write_file", arguments: JSON.stringify({ path: "out.txt", content: "x" }) });
    const third = approval();
    const p = await prompt([first, second, third]);
    expect(p.frame()).toContain("approval 1 of 3");
    expect(p.frame()).toContain("call 2 of 3 in this batch; after it: read_file notes.md");
    expect(p.frame()).toContain("waiting after this one:");
    expect(p.frame()).toContain("write_file out.txt");
    expect(p.frame()).toContain(`shell_exec git push origin feature-`);
    await p.press("y");
    expect(p.answers.map(([id]) => id)).toEqual([first.approvalId]);
  });
});
