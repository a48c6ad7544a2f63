import { safeLine, safeText, showJson, toolOutputText, type Decision, type GatehouseEvent } from "@gatehouse/protocol";
import { describeCall, describeRule, outputPreview, wasRefused } from "@gatehouse/client-text";

/** Why a call started: the rule that allowed it, the mode that allowed what the rules asked about, or a person. */
function allowedBy(decision: Decision | null): string {
  const rule = describeRule(decision);
  if (!rule) return "approved";
  if (decision!.action === "allow" && decision!.ruleAction !== "allow")
    return `allowed by ${decision!.mode} mode; the rules said ${decision!.ruleAction}: ${rule}`;
  return `allowed by ${rule}`;
}

/**
 * Writes a turn's events as lines a person (or `grep`) can follow, or as JSON lines. A
 * subagent's lines start with its agent type; its text is left out, since its answer comes
 * back as the `task` call's result.
 */
export class TurnPrinter {
  private readonly titles = new Map<string, string>();
  private readonly agents = new Map<string, string>();
  /** Calls that were denied or rejected, with why. */
  readonly denied: string[] = [];
  error: string | null = null;
  private heldText: { id: string; event: Extract<GatehouseEvent, { type: "assistant_text_delta" }> } | null = null;

  constructor(
    private readonly write: (line: string) => void,
    private readonly json: boolean,
    /** The session whose turn this is; events of other sessions are its subagents'. */
    private readonly sessionId: string,
    /** Where problems outside the turn go (an MCP server that fails): stderr for `run`. */
    private readonly warn: (line: string) => void = write,
  ) {}

  print(id: string, e: GatehouseEvent): void {
    this.track(e);
    if (this.json) return this.printJson(id, e);
    const own = e.sessionId === this.sessionId;
    if (!own && (e.type === "assistant_message" || e.type === "worker_disconnected" || e.type === "permissions_invalid")) return;
    const line = this.describe(e);
    if (line === null) return;
    if (e.type === "mcp_server") return this.warn(line);
    this.write(own ? line : `[${safeLine(this.agents.get(e.sessionId) ?? "subagent")}] ${line}`);
  }

  /**
   * One JSON line per event, except that text deltas in a row, of one session, are held back and
   * written as one (the first's time, the last's id) when an event of another kind arrives.
   */
  private printJson(id: string, e: GatehouseEvent): void {
    const held = this.heldText;
    if (e.type === "assistant_text_delta" && held?.event.sessionId === e.sessionId) {
      this.heldText = { id, event: { ...held.event, text: held.event.text + e.text } };
      return;
    }
    this.flushText();
    if (e.type === "assistant_text_delta") this.heldText = { id, event: e };
    else this.write(showJson({ id, ...e }).text);
  }

  private flushText(): void {
    if (!this.heldText) return;
    const { id, event } = this.heldText;
    this.heldText = null;
    this.write(showJson({ id, ...event }).text);
  }

  private title(e: { sessionId: string; callId: string; toolName: string }): string {
    return this.titles.get(`${e.sessionId}/${e.callId}`) ?? e.toolName;
  }

  private track(e: GatehouseEvent): void {
    const own = e.sessionId === this.sessionId;
    if (e.type === "session_created") this.agents.set(e.sessionId, e.session.agent);
    if (e.type === "assistant_message" && e.message.role === "assistant")
      for (const c of e.message.toolCalls) this.titles.set(`${e.sessionId}/${c.callId}`, describeCall(c.toolName, c.arguments, 200));
    if (e.type === "tool_result" && wasRefused(e.outcome))
      this.denied.push(`${own ? "" : `[${safeLine(this.agents.get(e.sessionId) ?? "subagent")}] `}${this.title(e)}: ${safeText(e.output)}`);
    if (!own) return;
    if (e.type === "session_error") this.error = `${e.code}: ${e.message}`;
    if (e.type === "turn_ended" && e.reason === "error" && !this.error) this.error = "the turn ended with an error";
  }

  private describe(e: GatehouseEvent): string | null {
    switch (e.type) {
      case "session_created":
        return e.session.parentId ? `subagent ${safeLine(e.session.agent)} started (session ${e.sessionId})` : null;
      case "assistant_message":
        return e.message.role === "assistant" && e.message.text.trim() ? safeText(e.message.text) : null;
      case "tool_call_started":
        return `→ ${this.title(e)} (${allowedBy(e.decision)})`;
      case "tool_result": {
        const title = this.title(e);
        const text = toolOutputText(e);
        if (e.ok) return [`✓ ${title}`, ...outputPreview(text).map((l) => `    ${l}`)].join("\n");
        return `✗ ${wasRefused(e.outcome) ? "denied" : e.outcome.replace("_", " ")}: ${title}: ${safeText(text)}`;
      }
      case "tool_approval_required":
        return `? ${describeCall(e.toolName, e.arguments, 200)} asks: ${safeLine(e.reason)}`;
      case "tool_approval_resolved":
        return `  ${e.outcome.replace("_", " ")}${e.by ? ` by ${safeLine(e.by)}` : ""}`;
      case "session_error":
        return `error: ${e.code}: ${safeText(e.message)}`;
      case "permissions_invalid":
        return `error: permissions file invalid: ${safeLine(e.file)}:${e.line}:${e.column}: ${safeText(e.message)}`;
      case "worker_disconnected":
        return `error: worker ${e.workerId} disconnected`;
      case "mcp_server":
        return e.problem === null ? `MCP server ${safeLine(e.server)} runs again` : `error: MCP server ${safeLine(e.server)} ${safeText(e.problem)}`;
      case "turn_ended":
        return `turn ended: ${e.reason.replace("_", " ")}`;
      default:
        return null;
    }
  }
}
