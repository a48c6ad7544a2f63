import type { ApprovalRequired } from "@gatehouse/protocol";
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalPrompt } from "../src/components/approval-prompt.js";
import type { Answer } from "../src/session-controller.js";
import { approval, decision } from "./fixtures.js";

/**
 * Lets a key's render and its effects happen. React runs them from setImmediate; on a busy
 * machine a timer alone can fire first, while the next stage's input handler is not yet there.
 */
const tick = async () => {
  await new Promise((r) => setTimeout(r, 30));
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
};
let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

/** Renders the prompt over a queue and records what it answers and what it asks to view. */
async function prompt(queue: ApprovalRequired[]) {
  const answers: [string, Answer][] = [];
  const viewed: string[] = [];
  const r = render(<ApprovalPrompt queue={queue} onAnswer={(a, answer) => answers.push([a.approvalId, answer])} onView={(a) => viewed.push(a.approvalId)} />);
  cleanup = r.unmount;
  await tick();
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      await tick();
    }
  };
  return { answers, viewed, press, frame: () => r.lastFrame() ?? "" };
}

describe("the approval prompt", () => {
  it("shows the tool, its tier, why it asks, the command with its directory and the keys", async () => {
    const a = approval({ decision: decision({ critical: "rm -r on / or the home directory" }) });
    const p = await prompt([a]);
    expect(p.frame()).toContain("shell_exec tier exec");
    expect(p.frame()).toContain("why: the rules ask for shell commands");
    expect(p.frame()).toContain('rule: static rule shell_exec "*" (/data/permissions.jsonc:11:5)');
    expect(p.frame()).toContain("critical: rm -r on / or the home directory");
    expect(p.frame()).toContain("in /work/project");
    expect(p.frame()).toContain(`$ git push origin feature-`);
    expect(p.frame()).toMatch(/y once +s session +a always \(git push \*\) +n deny with feedback +N deny hard +v view/);
  });

  it("shows a diff line by line and says how to see the rest of a long one", async () => {
    const content = ["--- a/x.ts", "+++ b/x.ts", "@@ -1,1 +1,1 @@", "-old", "+new", ...Array.from({ length: 40 }, (_, i) => ` line ${i}`)].join("\n");
    const p = await prompt([approval({ toolName: "edit_file", presentation: { kind: "diff", content, truncated: true, fullSize: 99_000 } })]);
    expect(p.frame()).toContain("-old");
    expect(p.frame()).toContain("+new");
    expect(p.frame()).toMatch(/… 29 more line\(s\); press v to view the whole \(99000 characters\)/);
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
    expect(p.frame()).toContain("always allow pattern (Enter saves, Esc goes back): git push *");
    await p.press("\x7f", "origin *", "\r");
    expect(p.answers).toEqual([[a.approvalId, { kind: "approve", scope: "always", pattern: "git push origin *" }]]);
  });

  it("offers no always when the server suggests no pattern, and says why; a does nothing", async () => {
    const a = approval({ decision: decision({ critical: "fetch and execute" }), suggestedPattern: "", suggestedPatterns: [] });
    const p = await prompt([a]);
    expect(p.frame()).toMatch(/y once +s session +\(no always: critical, once at most\) +n deny with feedback/);
    await p.press("a");
    expect(p.frame()).not.toContain("always allow pattern");
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
