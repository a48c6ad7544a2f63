import readline from "node:readline";
import { approvalMark, describeMark, inSight, safePresentation, SCREEN_LIMITS, type ApprovalRequired, type GatehouseClient } from "@gatehouse/protocol";
import { describeCall } from "@gatehouse/client-text";

interface Open {
  approval: ApprovalRequired;
  rl: readline.Interface;
}

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
    this.takeOff();
    this.dismiss();
    this.next();
  }

  /**
   * Writes output; an open question is taken off the screen first and asked again below it, with
   * what was typed. It is asked anew rather than redrawn: a redraw moves up as many rows as the
   * question took before, into the output.
   */
  print(write: () => void): void {
    if (!this.open) return write();
    const { approval, rl } = this.open;
    const typed = rl.line;
    this.takeOff();
    this.dismiss();
    write();
    this.question(approval, typed);
  }

  /** Drops every question: the turn has ended. */
  close(): void {
    this.waiting.length = 0;
    if (!this.open) return;
    this.takeOff();
    this.dismiss();
  }

  /** Erases the open question from the screen, every row of it where it wrapped, and leaves the cursor where it began. */
  private takeOff(): void {
    const { rows } = this.open!.rl.getCursorPos();
    readline.moveCursor(this.output, 0, -rows);
    readline.cursorTo(this.output, 0);
    readline.clearScreenDown(this.output);
  }

  private next(): void {
    const approval = this.waiting.shift();
    if (!approval) return;
    this.showCall(approval);
    this.question(approval, "");
  }

  private question(approval: ApprovalRequired, typed: string): void {
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
    if (typed) rl.write(typed);
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
