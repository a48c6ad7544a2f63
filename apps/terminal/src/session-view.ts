import { compactionNotice, safeLine, toolOutputText, type ApprovalRequired, type GatehouseEvent, type Mode, type ToolResultOutcome } from "@gatehouse/protocol";
import { describeCall, describeRule } from "@gatehouse/client-text";

export type CallStatus = "queued" | "asking" | "running" | "done" | "failed" | "denied" | "cancelled";

export interface CallItem {
  kind: "call";
  callId: string;
  title: string;
  status: CallStatus;
  /** Why it may run: the allowing rule, or who approved it and how. */
  because: string | null;
  output: string | null;
}

/** A person's own `!command`: running while its output streams in, then how it ended. */
export interface ShellItem {
  kind: "shell";
  commandId: string;
  command: string;
  running: boolean;
  exitCode: number | null;
  output: string;
}

export type Item =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string; streaming: boolean }
  | CallItem
  | ShellItem
  | { kind: "notice"; tone: "info" | "warn" | "error"; text: string };

/** What the terminal shows of a session, built from its events alone. */
export interface SessionView {
  items: Item[];
  /** Approvals waiting for an answer, oldest first. */
  pending: ApprovalRequired[];
  mode: Mode;
  turnRunning: boolean;
  workerOnline: boolean;
  /** The session shown; events of other sessions in the stream are its subagents'. Null: every event is its own. */
  sessionId: string | null;
  /** Subagent session ids and their agent types. */
  subagents: Record<string, string>;
  /** Indexes of `items` in the order they ended (entries never move): the order the transcript prints them. */
  ended: number[];
}

export const emptyView = (mode: Mode = "default", sessionId: string | null = null): SessionView => ({
  items: [],
  pending: [],
  mode,
  turnRunning: false,
  workerOnline: true,
  sessionId,
  subagents: {},
  ended: [],
});

/** How a session's calls appear: its own plainly, a subagent's prefixed with its agent type and keyed apart. */
interface Scope {
  /** A call's title (safe to print) as the transcript shows it. */
  title: (text: string) => string;
  key: (callId: string) => string;
}

const OWN: Scope = { title: (t) => t, key: (id) => id };

/**
 * The call's line changed as its events come, the latest line of that id. An event that names the
 * call's arguments (`titled`) and shows another call than that line is a call of its own: ids come
 * from the model, which may give two calls one id, and a line never shows one call for another.
 */
function updateCall(view: SessionView, callId: string, make: () => CallItem, change: (c: CallItem) => Partial<CallItem>, titled = false): Item[] {
  const at = view.items.findLastIndex((i) => i.kind === "call" && i.callId === callId);
  if (at === -1 || (titled && (view.items[at] as CallItem).title !== make().title)) return [...view.items, { ...make(), ...change(make()) }];
  const items = [...view.items];
  items[at] = { ...(items[at] as CallItem), ...change(items[at] as CallItem) };
  return items;
}

/** Whether a call's status is final. */
export const settledStatus = (status: CallStatus): boolean => status !== "queued" && status !== "asking" && status !== "running";

/** Whether an entry will not change any more, so it can be printed once and left alone. */
export function settled(item: Item): boolean {
  if (item.kind === "assistant") return !item.streaming;
  if (item.kind === "call") return settledStatus(item.status);
  if (item.kind === "shell") return !item.running;
  return true;
}

/** `after` with the entries that ended since `before` added to its `ended` order. */
function recordEnded(before: SessionView, after: SessionView): SessionView {
  const ended: number[] = [];
  after.items.forEach((item, i) => {
    const was = before.items[i];
    if (settled(item) && (was === undefined || !settled(was))) ended.push(i);
  });
  return ended.length === 0 ? after : { ...after, ended: [...after.ended, ...ended] };
}

const newCall =
  (callId: string, title: string): (() => CallItem) =>
  () => ({ kind: "call", callId, title, status: "running", because: null, output: null });

/** A `!command`'s item changed, or added when its first event is the one seen. */
function updateShell(items: Item[], commandId: string, command: string, change: (s: ShellItem) => Partial<ShellItem>): Item[] {
  const at = items.findIndex((i) => i.kind === "shell" && i.commandId === commandId);
  if (at === -1) {
    const fresh: ShellItem = { kind: "shell", commandId, command, running: true, exitCode: null, output: "" };
    return [...items, { ...fresh, ...change(fresh) }];
  }
  const next = [...items];
  next[at] = { ...(items[at] as ShellItem), ...change(items[at] as ShellItem) };
  return next;
}

function appendText(items: Item[], text: string): Item[] {
  const last = items.at(-1);
  if (last?.kind === "assistant" && last.streaming) return [...items.slice(0, -1), { ...last, text: last.text + text }];
  return [...items, { kind: "assistant", text, streaming: true }];
}

function finishText(items: Item[], text: string): Item[] {
  const last = items.at(-1);
  if (last?.kind === "assistant" && last.streaming) return [...items.slice(0, -1), { kind: "assistant", text, streaming: false }];
  return text.trim() === "" ? items : [...items, { kind: "assistant", text, streaming: false }];
}

const addNotice = (view: SessionView, tone: "info" | "warn" | "error", text: string): SessionView => ({
  ...view,
  items: [...view.items, { kind: "notice", tone, text }],
});

/** The view with a line added to its transcript: the client's own (a lost connection, a refused command). */
export const notice = (view: SessionView, tone: "info" | "warn" | "error", text: string): SessionView => recordEnded(view, addNotice(view, tone, text));

/** Whether one of the person's own commands is still running. */
export const shellRunning = (view: SessionView): boolean => view.items.some((i) => i.kind === "shell" && i.running);

/**
 * The view once what it showed as moving can no longer be followed (the session is gone from the
 * server): no turn, no prompt, calls not settled shown as cancelled, commands as ended unseen.
 */
export function interrupted(view: SessionView, tone: "warn" | "error", text: string): SessionView {
  const items = view.items.map((i): Item => {
    if (i.kind === "call" && !settledStatus(i.status)) return { ...i, status: "cancelled" };
    if (i.kind === "shell" && i.running) return { ...i, running: false, output: `${i.output}\n[its end was not seen]` };
    return i;
  });
  return recordEnded(view, addNotice({ ...view, items, pending: [], turnRunning: false }, tone, text));
}

const RESOLVED_STATUS = { approved: "running", denied: "denied", cancelled: "cancelled", timed_out: "denied" } as const;

const RESULT_STATUS: Record<ToolResultOutcome, CallStatus> = {
  ok: "done",
  failed: "failed",
  denied: "denied",
  rejected: "denied",
  cancelled: "cancelled",
  timed_out: "failed",
};

/**
 * A call's final status: an unanswered approval keeps what its resolution said; a call still
 * queued when an earlier call of its batch was denied hard did not run, and is cancelled; else
 * the result's outcome decides.
 */
function resultStatus(current: CallStatus, outcome: ToolResultOutcome): CallStatus {
  if (outcome !== "ok" && (current === "denied" || current === "cancelled")) return current;
  if (outcome === "rejected" && current === "queued") return "cancelled";
  return RESULT_STATUS[outcome];
}

/** Applies one event; events seen again after a reconnect change nothing. */
export function applyEvent(view: SessionView, e: GatehouseEvent): SessionView {
  const after = view.sessionId !== null && e.sessionId !== view.sessionId ? applySubagentEvent(view, e) : applyOwnEvent(view, e, OWN);
  return recordEnded(view, after);
}

/** A subagent's event: its calls and approvals are shown, its text is not (its answer comes back as the task's result). */
function applySubagentEvent(view: SessionView, e: GatehouseEvent): SessionView {
  const agent = e.type === "session_created" ? e.session.agent : (view.subagents[e.sessionId] ?? "subagent");
  const scope: Scope = { title: (t) => `${safeLine(agent)} › ${t}`, key: (id) => `${e.sessionId}/${id}` };
  switch (e.type) {
    case "session_created":
      return addNotice({ ...view, subagents: { ...view.subagents, [e.sessionId]: agent } }, "info", `subagent ${agent} started (session ${e.sessionId})`);
    case "assistant_message":
      return { ...view, items: [...view.items, ...queuedCalls(view, e.message, scope)] };
    case "tool_call_started":
    case "tool_approval_required":
    case "tool_approval_resolved":
    case "tool_result":
      return applyOwnEvent(view, e, scope);
    case "turn_ended":
      return addNotice(view, e.reason === "completed" ? "info" : "warn", `subagent ${agent} ended: ${e.reason.replace("_", " ")}`);
    case "session_error":
      return addNotice(view, "error", `subagent ${agent}: ${e.code}: ${e.message}`);
    default:
      return view;
  }
}

function queuedCalls(view: SessionView, message: Extract<GatehouseEvent, { type: "assistant_message" }>["message"], scope: Scope): CallItem[] {
  if (message.role !== "assistant") return [];
  const known = new Set(view.items.flatMap((i) => (i.kind === "call" ? [`${i.callId}\n${i.title}`] : [])));
  return message.toolCalls
    .map((c): CallItem => ({ ...newCall(scope.key(c.callId), scope.title(describeCall(c.toolName, c.arguments)))(), status: "queued" }))
    .filter((c) => !known.has(`${c.callId}\n${c.title}`));
}

function applyOwnEvent(view: SessionView, e: GatehouseEvent, scope: Scope): SessionView {
  const call = (callId: string, toolName: string, args?: string) =>
    newCall(scope.key(callId), scope.title(args === undefined ? safeLine(toolName) : describeCall(toolName, args)));
  switch (e.type) {
    case "session_created":
      return { ...view, mode: e.session.mode };
    case "user_message":
      return { ...view, turnRunning: true, items: [...view.items, { kind: "user", text: e.text }] };
    case "assistant_text_delta":
      return { ...view, items: appendText(view.items, e.text) };
    case "assistant_message":
      if (e.message.role !== "assistant") return view;
      return { ...view, items: [...finishText(view.items, e.message.text), ...queuedCalls(view, e.message, scope)] };
    case "tool_call_started":
      return {
        ...view,
        items: updateCall(
          view,
          scope.key(e.callId),
          call(e.callId, e.toolName, e.arguments),
          (c) => ({ status: "running", because: c.because ?? describeRule(e.decision) }),
          true,
        ),
      };
    case "tool_approval_required":
      if (view.pending.some((p) => p.approvalId === e.approvalId)) return view;
      return {
        ...view,
        pending: [...view.pending, e],
        items: updateCall(view, scope.key(e.callId), call(e.callId, e.toolName, e.arguments), () => ({ status: "asking" }), true),
      };
    case "tool_approval_resolved": {
      const asked = view.pending.find((p) => p.approvalId === e.approvalId);
      // An edited call's line shows what runs, and what was asked for.
      const edited = e.editedArguments && asked ? { title: scope.title(describeCall(asked.toolName, e.editedArguments)) } : {};
      const because = safeLine(
        e.outcome === "approved"
          ? `approved by ${e.by ?? "someone"}${e.scope && e.scope !== "once" ? ` (${e.scope}${e.pattern ? `: ${e.pattern}` : ""})` : ""}${
              edited.title && asked ? `, edited from: ${describeCall(asked.toolName, asked.arguments, 60)}` : ""
            }`
          : `${e.outcome.replace("_", " ")}${e.by ? ` by ${e.by}` : ""}${e.feedback ? `: ${e.feedback}` : ""}`,
      );
      const pending = view.pending.filter((p) => p.approvalId !== e.approvalId);
      // A connection a person let through has no result to wait for: it is done when approved.
      const status = asked?.toolName === "network" && e.outcome === "approved" ? "done" : RESOLVED_STATUS[e.outcome];
      return {
        ...view,
        pending,
        items: updateCall(view, scope.key(e.callId), call(e.callId, "tool call"), () => ({ status, because, ...edited })),
      };
    }
    case "tool_result":
      return {
        ...view,
        items: updateCall(view, scope.key(e.callId), call(e.callId, e.toolName), (c) => ({
          status: resultStatus(c.status, e.outcome),
          output: toolOutputText(e),
        })),
      };
    case "turn_ended": {
      const items = view.items.map((i): Item => (i.kind === "call" && !settledStatus(i.status) ? { ...i, status: "cancelled" } : i));
      const ended = { ...view, items, turnRunning: false, pending: [] };
      return e.reason === "completed" ? ended : addNotice(ended, e.reason === "error" ? "error" : "warn", `turn ended: ${e.reason.replace("_", " ")}`);
    }
    case "session_error":
      return addNotice(view, "error", `${e.code}: ${e.message}`);
    case "context_compacted":
      return addNotice(view, "info", compactionNotice(e));
    case "mode_changed":
      return addNotice({ ...view, mode: e.mode }, "info", `mode: ${e.mode}`);
    case "shell_started":
      return { ...view, items: updateShell(view.items, e.commandId, e.command, () => ({})) };
    case "shell_output":
      return { ...view, items: updateShell(view.items, e.commandId, "", (s) => (s.running ? { output: s.output + e.text } : {})) };
    case "shell_command":
      return {
        ...view,
        items: updateShell(view.items, e.commandId, e.command, () => ({
          command: e.command,
          running: false,
          exitCode: e.exitCode,
          output: toolOutputText({ ok: e.exitCode === 0, output: e.output, stderr: e.stderr }),
        })),
      };
    case "worker_connected":
      return view.workerOnline ? view : notice({ ...view, workerOnline: true }, "info", `worker ${e.workerId} is back online`);
    case "worker_disconnected":
      return addNotice({ ...view, workerOnline: false }, "error", `worker ${e.workerId} is offline`);
    case "permissions_invalid":
      return addNotice(view, "error", `permissions file invalid: ${e.file}:${e.line}:${e.column}: ${e.message} (every call asks until it is fixed)`);
    case "mcp_server":
      return e.problem === null
        ? addNotice(view, "info", `MCP server ${e.server} runs again; its tools are back`)
        : addNotice(view, "error", `MCP server ${e.server} on worker ${e.workerId} ${e.problem}`);
  }
}
