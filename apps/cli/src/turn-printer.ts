import type { GatehouseEvent } from "@gatehouse/protocol";
import { DENIAL, describeCall, describeRule, outputPreview } from "@gatehouse/terminal";

/** Writes a turn's events as lines a person (or `grep`) can follow, or as JSON lines. */
export class TurnPrinter {
  private readonly titles = new Map<string, string>();
  /** Calls that were denied or rejected, with why. */
  readonly denied: string[] = [];
  error: string | null = null;

  constructor(
    private readonly write: (line: string) => void,
    private readonly json: boolean,
  ) {}

  print(id: string, e: GatehouseEvent): void {
    this.track(e);
    if (this.json) return this.write(JSON.stringify({ id, ...e }));
    const line = this.describe(e);
    if (line !== null) this.write(line);
  }

  private track(e: GatehouseEvent): void {
    if (e.type === "assistant_message" && e.message.role === "assistant") for (const c of e.message.toolCalls) this.titles.set(c.callId, describeCall(c.toolName, c.arguments, 200));
    if (e.type === "tool_result" && !e.ok && DENIAL.test(e.output)) this.denied.push(`${this.titles.get(e.callId) ?? e.toolName}: ${e.output.replace(DENIAL, "")}`);
    if (e.type === "session_error") this.error = `${e.code}: ${e.message}`;
    if (e.type === "turn_ended" && e.reason === "error" && !this.error) this.error = "the turn ended with an error";
  }

  private describe(e: GatehouseEvent): string | null {
    switch (e.type) {
      case "assistant_message":
        return e.message.role === "assistant" && e.message.text.trim() ? e.message.text : null;
      case "tool_call_started": {
        const rule = describeRule(e.decision);
        return `→ ${this.titles.get(e.callId) ?? e.toolName}${rule ? ` (allowed by ${rule})` : " (approved)"}`;
      }
      case "tool_result": {
        const title = this.titles.get(e.callId) ?? e.toolName;
        if (e.ok) return [`✓ ${title}`, ...outputPreview(e.output).map((l) => `    ${l}`)].join("\n");
        return DENIAL.test(e.output) ? `✗ denied: ${title}: ${e.output.replace(DENIAL, "")}` : `✗ failed: ${title}: ${e.output}`;
      }
      case "tool_approval_required":
        return `? ${describeCall(e.toolName, e.arguments, 200)} asks: ${e.reason}`;
      case "tool_approval_resolved":
        return `  ${e.outcome.replace("_", " ")}${e.by ? ` by ${e.by}` : ""}`;
      case "session_error":
        return `error: ${e.code}: ${e.message}`;
      case "permissions_invalid":
        return `error: permissions file invalid: ${e.file}:${e.line}:${e.column}: ${e.message}`;
      case "worker_disconnected":
        return `error: worker ${e.workerId} disconnected`;
      case "turn_ended":
        return `turn ended: ${e.reason.replace("_", " ")}`;
      default:
        return null;
    }
  }
}
