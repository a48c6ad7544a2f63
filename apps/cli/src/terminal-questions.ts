import readline from "node:readline";
import { approvalMark, describeMark, inSight, safePresentation, SCREEN_LIMITS, type ApprovalRequired, type GatehouseClient } from "@gatehouse/protocol";
import { describeCall } from "@gatehouse/terminal";

interface Open {
  approval: ApprovalRequired;
  rl: readline.Interface;
}

/** Erases the line the cursor is on and goes to its start. */
const CLEAR_LINE = "\r\x1b[2K";

/**
 * `gatehouse run`'s questions on a terminal, one line each: y approves once (the one answer every
 * call takes, a critical one too), anything else denies. One question is open at a time; the
 * others wait their turn. An approval answered elsewhere leaves the queue, and its open question
 * goes. Output written while a question is open goes above it, never onto its line.
 */
export class TerminalQuestions {
  private readonly waiting: ApprovalRequired[] = [];
  private open: Open | null = null;

  constructor(
    private readonly client: GatehouseClient,
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WriteStream = process.stderr,
  ) {}

  ask(approval: ApprovalRequired): void {
    this.waiting.push(approval);
    if (!this.open) this.next();
  }

  /** The approval was answered (here or elsewhere), cancelled or timed out: it is asked no more. */
  resolved(approvalId: string): void {
    const queued = this.waiting.findIndex((a) => a.approvalId === approvalId);
    if (queued >= 0) this.waiting.splice(queued, 1);
    if (this.open?.approval.approvalId !== approvalId) return;
    this.output.write(CLEAR_LINE);
    this.dismiss();
    this.next();
  }

  /** Writes output; an open question is taken off its line first and shown again below it, with what was typed. */
  print(write: () => void): void {
    if (!this.open) return write();
    this.output.write(CLEAR_LINE);
    write();
    this.open.rl.prompt(true);
  }

  /** Drops every question: the turn has ended. */
  close(): void {
    this.waiting.length = 0;
    if (!this.open) return;
    this.output.write(CLEAR_LINE);
    this.dismiss();
  }

  private next(): void {
    const approval = this.waiting.shift();
    if (!approval) return;
    this.showCall(approval);
    const rl = readline.createInterface({ input: this.input, output: this.output });
    this.open = { approval, rl };
    // The question reads keys raw: Ctrl+C there stops the run, as it does anywhere else in it.
    rl.once("SIGINT", () => {
      this.close();
      process.kill(process.pid, "SIGINT");
    });
    rl.question(`approve ${describeCall(approval.toolName, approval.arguments, 200)} once? [y/N] `, (answer) => {
      this.dismiss();
      void this.answer(approval, answer.trim().toLowerCase() === "y").finally(() => this.open || this.next());
    });
  }

  /** What the call would do, escaped and marked, above its question. */
  private showCall(a: ApprovalRequired): void {
    const shown = a.presentation ? inSight(safePresentation(a.presentation).content.replace(/\n$/, ""), SCREEN_LIMITS) : null;
    if (shown) this.output.write(`${shown.text.replace(/^/gm, "  | ")}\n`);
    for (const line of describeMark(approvalMark(a, shown?.cuts))) this.output.write(`  ! ${line}\n`);
  }

  private dismiss(): void {
    const open = this.open;
    this.open = null;
    open?.rl.close();
  }

  private async answer(a: ApprovalRequired, approve: boolean): Promise<void> {
    const ref = { sessionId: a.sessionId, approvalId: a.approvalId };
    try {
      const { applied } = approve
        ? await this.client.tool.approve.mutate({ ...ref, ...(a.digest ? { digest: a.digest } : {}) })
        : await this.client.tool.deny.mutate({ ...ref, feedback: "denied at the terminal" });
      if (!applied) this.output.write("  (not applied: it was answered elsewhere first, or is no longer pending)\n");
    } catch (err) {
      this.output.write(`  (not applied: ${(err as Error).message})\n`);
    }
  }
}
