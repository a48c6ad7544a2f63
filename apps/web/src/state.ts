import type { ApprovalRequired, Decision, EventOf, GatehouseEvent, SessionInfo } from "@gatehouse/protocol";

export type CallStatus = "queued" | "asking" | "running" | "done" | "failed" | "denied" | "cancelled";

export type Entry =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string; streaming: boolean }
  | { kind: "tool"; callId: string; toolName: string; args: string; status: CallStatus; why: string | null; output: string | null; childId: string | null }
  | { kind: "shell"; command: string; exitCode: number | null; output: string; by: string }
  | { kind: "notice"; text: string; tone: "info" | "error" };

const RESULT_STATUS: Record<EventOf<"tool_result">["outcome"], CallStatus> = {
  ok: "done",
  failed: "failed",
  timed_out: "failed",
  denied: "denied",
  rejected: "denied",
  cancelled: "cancelled",
};

/** The rule behind a decision in a few words: `allow by write_file "*.md" (permissions.jsonc:4:5)`. */
export function ruleText(d: Decision | null): string | null {
  if (!d) return null;
  if (!d.rule) return `${d.action}: ${d.reason}`;
  const where = d.rule.file ? ` (${d.rule.file}${d.rule.line ? `:${d.rule.line}:${d.rule.column ?? 1}` : ""})` : "";
  return `${d.action} by ${d.rule.tool} "${d.rule.pattern}"${where}`;
}

/** Everything the console knows, built from the event stream; mutated in place, watched by version. */
export class ConsoleState {
  readonly sessions = new Map<string, SessionInfo>();
  readonly transcripts = new Map<string, Entry[]>();
  /** Pending approvals by id, in the order they were raised. */
  readonly approvals = new Map<string, ApprovalRequired>();
  /** Approvals answered while this console was watching, so a late replay does not bring them back. */
  private readonly resolved = new Set<string>();

  putSessions(list: SessionInfo[]): void {
    for (const s of list) this.sessions.set(s.id, { ...this.sessions.get(s.id), ...s });
  }

  transcript(sessionId: string): Entry[] {
    let list = this.transcripts.get(sessionId);
    if (!list) this.transcripts.set(sessionId, (list = []));
    return list;
  }

  /** The session and its subagents at any depth. */
  family(sessionId: string): Set<string> {
    const out = new Set([sessionId]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const s of this.sessions.values()) {
        if (s.parentId && out.has(s.parentId) && !out.has(s.id)) {
          out.add(s.id);
          grew = true;
        }
      }
    }
    return out;
  }

  children(sessionId: string | null): SessionInfo[] {
    return [...this.sessions.values()].filter((s) => s.parentId === sessionId).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** `explore › general` for a subagent's approval: the agent path below the top session. */
  agentPath(sessionId: string): string {
    const names: string[] = [];
    let s = this.sessions.get(sessionId);
    while (s?.parentId) {
      names.unshift(s.agent);
      s = this.sessions.get(s.parentId);
    }
    return names.join(" › ");
  }

  private call(sessionId: string, callId: string): Extract<Entry, { kind: "tool" }> | undefined {
    const list = this.transcript(sessionId);
    for (let i = list.length - 1; i >= 0; i--) {
      const e = list[i]!;
      if (e.kind === "tool" && e.callId === callId) return e;
    }
    return undefined;
  }

  /**
   * The latest entry of a call id, or a new one. Ids come from the model, which may give two calls
   * one id: an event that names other arguments than that entry shows is a call of its own.
   */
  private ensureCall(sessionId: string, callId: string, toolName: string, args: string, argsKnown = true) {
    const found = this.call(sessionId, callId);
    if (found && (!argsKnown || (found.toolName === toolName && sameArguments(found.args, args)))) return found;
    const entry: Extract<Entry, { kind: "tool" }> = { kind: "tool", callId, toolName, args, status: "queued", why: null, output: null, childId: null };
    this.transcript(sessionId).push(entry);
    return entry;
  }

  apply(e: GatehouseEvent): void {
    const list = this.transcript(e.sessionId);
    const session = this.sessions.get(e.sessionId);
    switch (e.type) {
      case "session_created": {
        this.sessions.set(e.session.id, { ...e.session, ...this.sessions.get(e.session.id) });
        const parent = e.session.parentId;
        if (parent) {
          const task = [...this.transcript(parent)].reverse().find((x) => x.kind === "tool" && x.toolName === "task" && !x.childId && x.status === "running");
          if (task && task.kind === "tool") task.childId = e.session.id;
        }
        return;
      }
      case "user_message":
        list.push({ kind: "user", text: e.text });
        if (session) session.status = "running";
        return;
      case "assistant_text_delta": {
        const last = list.at(-1);
        if (last?.kind === "assistant" && last.streaming) last.text += e.text;
        else list.push({ kind: "assistant", text: e.text, streaming: true });
        return;
      }
      case "assistant_message": {
        const last = list.at(-1);
        const message = e.message;
        if (message.role !== "assistant") return;
        if (last?.kind === "assistant" && last.streaming) {
          last.text = message.text;
          last.streaming = false;
        } else if (message.text) list.push({ kind: "assistant", text: message.text, streaming: false });
        for (const c of message.toolCalls) this.ensureCall(e.sessionId, c.callId, c.toolName, c.arguments);
        return;
      }
      case "tool_call_started": {
        const c = this.ensureCall(e.sessionId, e.callId, e.toolName, e.arguments);
        c.status = "running";
        if (e.decision) c.why = ruleText(e.decision);
        return;
      }
      case "tool_approval_required": {
        if (this.resolved.has(e.approvalId)) return;
        this.approvals.set(e.approvalId, e);
        const c = this.ensureCall(e.sessionId, e.callId, e.toolName, e.arguments);
        if (c.status === "queued") c.status = "asking";
        c.why = e.reason;
        return;
      }
      case "tool_approval_resolved": {
        this.approvals.delete(e.approvalId);
        this.resolved.add(e.approvalId);
        const c = this.call(e.sessionId, e.callId);
        if (!c) return;
        const by = e.by ? ` by ${e.by}` : "";
        if (e.outcome === "approved") {
          c.status = "running";
          c.why = `approved${by}${e.scope && e.scope !== "once" ? ` (${e.scope}${e.pattern ? `: ${e.pattern}` : ""})` : ""}`;
          // An edited call's entry shows what runs, and what was asked for.
          if (e.editedArguments) {
            c.why += `, edited; the model asked for ${c.args}`;
            c.args = e.editedArguments;
          }
        } else {
          c.status = e.outcome === "denied" ? "denied" : "cancelled";
          c.why = `${e.outcome.replace("_", " ")}${by}${e.feedback ? `: ${e.feedback}` : ""}`;
        }
        return;
      }
      case "tool_result": {
        const c = this.ensureCall(e.sessionId, e.callId, e.toolName, "{}", false);
        c.status = RESULT_STATUS[e.outcome];
        c.output = [e.output, e.stderr ? `--- stderr ---\n${e.stderr}` : "", e.exitCode !== undefined ? `exit code: ${e.exitCode ?? "none"}` : ""]
          .filter(Boolean)
          .join("\n");
        return;
      }
      case "turn_ended":
        if (session) session.status = "idle";
        if (e.reason !== "completed")
          list.push({ kind: "notice", text: `turn ended: ${e.reason.replace("_", " ")}`, tone: e.reason === "error" ? "error" : "info" });
        return;
      case "session_error":
        list.push({ kind: "notice", text: `${e.code}: ${e.message}`, tone: "error" });
        return;
      case "context_compacted":
        // The model is sent a shorter history from here on; the history shown stays whole.
        list.push({ kind: "notice", text: `context compacted to fit the model's window (${e.reason})`, tone: "info" });
        return;
      case "mode_changed":
        if (session) session.mode = e.mode;
        list.push({ kind: "notice", text: `mode: ${e.mode}`, tone: "info" });
        return;
      case "shell_command":
        list.push({ kind: "shell", command: e.command, exitCode: e.exitCode, output: e.output, by: e.by });
        return;
      case "worker_connected":
        list.push({ kind: "notice", text: `worker ${e.workerId} connected`, tone: "info" });
        return;
      case "worker_disconnected":
        list.push({ kind: "notice", text: `worker ${e.workerId} disconnected`, tone: "error" });
        return;
      case "permissions_invalid":
        list.push({ kind: "notice", text: `${e.file}:${e.line}:${e.column}: ${e.message}`, tone: "error" });
        return;
      case "mcp_server":
        list.push(
          e.problem === null
            ? { kind: "notice", text: `MCP server ${e.server} runs again; its tools are back`, tone: "info" }
            : { kind: "notice", text: `MCP server ${e.server} on worker ${e.workerId} ${e.problem}`, tone: "error" },
        );
        return;
    }
  }
}

/** Two JSON texts of one call's arguments, however they are spaced. */
function sameArguments(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}
