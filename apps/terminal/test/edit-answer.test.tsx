import type { ApprovalRequired } from "@gatehouse/protocol";
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalPrompt } from "../src/components/approval-prompt.js";
import type { Answer, EditCheck } from "../src/session-controller.js";
import { approval, decision, tick, untilAnswerable } from "./fixtures.js";

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

/** The prompt with edits offered: `checks` answers each check in turn. */
async function prompt(a: ApprovalRequired, checks: EditCheck[]) {
  const answers: Answer[] = [];
  const checked: Record<string, unknown>[] = [];
  const onCheckEdit = (_a: ApprovalRequired, edited: Record<string, unknown>) => (checked.push(edited), Promise.resolve(checks.shift()!));
  const r = render(<ApprovalPrompt queue={[a]} onAnswer={(_a, answer) => answers.push(answer)} onView={() => {}} onCheckEdit={onCheckEdit} />);
  cleanup = r.unmount;
  await tick();
  await untilAnswerable(() => r.lastFrame() ?? "");
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      await tick();
    }
  };
  return { answers, checked, press, frame: () => r.lastFrame() ?? "" };
}

const BACKSPACE = "\x7f";
const editable = (command: string) => approval({ arguments: JSON.stringify({ command }), editable: true });

describe("approving an edited call in the terminal", () => {
  it("e edits the command; the edited call is shown against the original with the gate's reason, then approved once", async () => {
    const p = await prompt(editable("rm -rf build dist"), [{ decision: decision({ reason: "the rules ask for rm" }), suggestedPatterns: ["rm *"] }]);
    expect(p.frame()).toMatch(/v view +e edit/);
    await p.press("e");
    expect(p.frame()).toContain("edit the command (Enter checks it, Esc goes back): rm -rf build dist");
    await p.press(...Array<string>(10).fill(BACKSPACE), "dist", "\r");
    expect(p.checked).toEqual([{ command: "rm -rf dist" }]);
    expect(p.frame()).toMatch(/- rm -rf build dist[\s│]*\+ rm -rf dist[\s│]*why it asks: the rules ask for rm/);
    expect(p.frame()).toMatch(/y once +s session or a always \(rm \*\) +e edit again +Esc back/);
    await p.press("y");
    expect(p.answers).toEqual([{ kind: "approve", scope: "once", edited: { command: "rm -rf dist" } }]);
  });

  it("a critical edited call offers only Y, which confirms it; a refused edit says why and keeps the text", async () => {
    const p = await prompt(editable("ls"), [
      { error: "the edited shell_exec call is denied: no" },
      { decision: decision({ critical: "dd writes to a device" }), suggestedPatterns: [] },
    ]);
    await p.press("e", " x", "\r");
    expect(p.frame()).toContain("not approved: the edited shell_exec call is denied: no");
    expect(p.frame()).toContain("(Enter checks it, Esc goes back): ls x");
    await p.press("\r");
    expect(p.frame()).toContain("critical: dd writes to a device");
    expect(p.frame()).toMatch(/Y run it once, confirming the critical pattern +e edit again +Esc back/);
    await p.press("y", "s", "a");
    expect(p.answers).toEqual([]);
    await p.press("Y");
    expect(p.answers).toEqual([{ kind: "approve", scope: "once", edited: { command: "ls x" }, confirmCritical: true }]);
  });

  it("no edit is offered for a call that cannot be edited; Esc goes back to the keys", async () => {
    const p = await prompt(approval({ editable: false }), []);
    expect(p.frame()).not.toMatch(/e edit/);
    await p.press("e");
    expect(p.frame()).not.toContain("edit the command");
    cleanup?.();
    const q = await prompt(editable("ls"), []);
    await q.press("e", "\x1b");
    expect(q.frame()).toMatch(/y once/);
    await q.press("y");
    expect(q.answers).toEqual([{ kind: "approve", scope: "once" }]);
  });
});
