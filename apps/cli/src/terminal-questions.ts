import readline from "node:readline";
import {
  approvalMark,
  describeMark,
  editableText,
  editedArguments,
  inSight,
  safeLine,
  safePresentation,
  SCREEN_LIMITS,
  type ApprovalRequired,
  type GatehouseClient,
} from "@gatehouse/protocol";
import { describeCall } from "@gatehouse/client-text";

/** One line asked about an approval: its prompt, and what the answer leads to. */
interface Question {
  approval: ApprovalRequired;
  prompt: string;
  answered(line: string): void | Promise<void>;
}

interface Open {
  question: Question;
  rl: readline.Interface;
}

/** How an approval is approved: as it is, or with the person's edited arguments. */
type Approval = { editedArguments?: Record<string, unknown>; confirmCritical?: true };

/**
 * `gatehouse run`'s questions on a terminal, one line each: y approves once (the one answer every
 * call takes, a critical one too), e edits a call that may be edited, anything else denies. An
 * edited call is checked by the server and shown against the original before it is approved. One
 * approval is asked about at a time; the others wait their turn. An approval answered elsewhere
 * leaves the queue, and its open question goes. Output written while a question is open goes
 * above it, never onto its line.
 */
export class TerminalQuestions {
  private readonly waiting: ApprovalRequired[] = [];
  /** The approval asked about now: its question open, its edit being checked, or its answer being sent. */
  private current: ApprovalRequired | null = null;
  private open: Open | null = null;

  constructor(
    private readonly client: GatehouseClient,
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WriteStream = process.stderr,
  ) {}

  ask(approval: ApprovalRequired): void {
    this.waiting.push(approval);
    if (!this.current) this.next();
  }

  /** The approval was answered (here or elsewhere), cancelled or timed out: it is asked no more. */
  resolved(approvalId: string): void {
    const queued = this.waiting.findIndex((a) => a.approvalId === approvalId);
    if (queued >= 0) this.waiting.splice(queued, 1);
    if (this.current?.approvalId !== approvalId) return;
    if (this.open) {
      this.takeOff();
      this.dismiss();
    }
    this.current = null;
    this.next();
  }

  /**
   * Writes output; an open question is taken off the screen first and asked again below it, with
   * what was typed. It is asked anew rather than redrawn: a redraw moves up as many rows as the
   * question took before, into the output.
   */
  print(write: () => void): void {
    if (!this.open) return write();
    const { question, rl } = this.open;
    const typed = rl.line;
    this.takeOff();
    this.dismiss();
    write();
    this.put(question, typed);
  }

  /** Drops every question: the turn has ended. */
  close(): void {
    this.waiting.length = 0;
    this.current = null;
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
    this.current = approval;
    this.showCall(approval);
    this.put(this.first(approval), "");
  }

  private first(approval: ApprovalRequired): Question {
    const editable = approval.editable === true;
    return {
      approval,
      prompt: `approve ${describeCall(approval.toolName, approval.arguments, 200)} once? [y/N${editable ? "/e" : ""}] `,
      answered: (line) => {
        const key = line.trim().toLowerCase();
        if (key === "e" && editable) return this.edit(approval, editableText(approval.toolName, approval.arguments));
        this.settle(approval, key === "y" ? {} : null);
      },
    };
  }

  private put(question: Question, typed: string): void {
    const rl = readline.createInterface({ input: this.input, output: this.output });
    this.open = { question, rl };
    // The question reads keys raw: Ctrl+C there stops the run, as it does anywhere else in it.
    rl.once("SIGINT", () => {
      this.close();
      process.kill(process.pid, "SIGINT");
    });
    rl.question(question.prompt, (line) => {
      this.dismiss();
      void question.answered(line);
    });
    if (typed) rl.write(typed);
  }

  /** The edit line, holding `text`: a shell command as itself, any other call's arguments as JSON. */
  private edit(approval: ApprovalRequired, text: string): void {
    const what = approval.toolName === "shell_exec" ? "the command" : "the arguments (JSON)";
    this.put({ approval, prompt: `edit ${what}: `, answered: (line) => this.check(approval, line) }, text);
  }

  /** The edited call as the server decides it, shown against the original; then approved, edited again, or left for the first question. */
  private async check(approval: ApprovalRequired, text: string): Promise<void> {
    let edited: Record<string, unknown>;
    let checked: Awaited<ReturnType<GatehouseClient["tool"]["checkEdit"]["query"]>>;
    try {
      edited = editedArguments(approval.toolName, approval.arguments, text);
      checked = await this.client.tool.checkEdit.query({ sessionId: approval.sessionId, approvalId: approval.approvalId, editedArguments: edited });
    } catch (err) {
      if (this.current !== approval) return;
      this.output.write(`  (not approved: ${safeLine((err as Error).message)})\n`);
      return this.edit(approval, text);
    }
    if (this.current !== approval) return;
    const shown = editableText(approval.toolName, JSON.stringify(edited));
    const critical = checked.decision.critical;
    this.output.write(`  - ${safeLine(editableText(approval.toolName, approval.arguments))}\n  + ${safeLine(shown)}\n`);
    this.output.write(`  why it asks: ${safeLine(checked.decision.reason)}\n${critical ? `  critical: ${safeLine(critical)}\n` : ""}`);
    const prompt = critical ? "run the edited call once, past its critical pattern? [y/N/e] " : "approve the edited call once? [y/N/e] ";
    this.put(
      {
        approval,
        prompt,
        answered: (line) => {
          const key = line.trim().toLowerCase();
          if (key === "y") this.settle(approval, { editedArguments: edited, ...(critical ? { confirmCritical: true as const } : {}) });
          else if (key === "e") this.edit(approval, shown);
          else this.put(this.first(approval), "");
        },
      },
      "",
    );
  }

  /** Sends the answer (null denies); the next approval is asked about once it has landed. */
  private settle(approval: ApprovalRequired, approve: Approval | null): void {
    void this.answer(approval, approve).finally(() => {
      if (this.current !== approval) return;
      this.current = null;
      this.next();
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

  private async answer(a: ApprovalRequired, approve: Approval | null): Promise<void> {
    const ref = { sessionId: a.sessionId, approvalId: a.approvalId };
    try {
      const { applied } = approve
        ? await this.client.tool.approve.mutate({ ...ref, ...(a.digest ? { digest: a.digest } : {}), ...approve })
        : await this.client.tool.deny.mutate({ ...ref, feedback: "denied at the terminal" });
      if (!applied) this.output.write("  (not applied: it was answered elsewhere first, or is no longer pending)\n");
    } catch (err) {
      this.output.write(`  (not applied: ${(err as Error).message})\n`);
    }
  }
}
