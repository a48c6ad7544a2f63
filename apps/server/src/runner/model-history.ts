import { cutText, type Message } from "@gatehouse/protocol";

/** The marker that ends a tool result cut for the model; the whole result stays in the session's history. */
export function cutMarker(shown: number, total: number): string {
  return `\n[... cut: ${total - shown} of ${total} characters not shown]`;
}

function cut(content: string, limit: number): string {
  return cutText(content, limit, (total) => cutMarker(limit, total)).text;
}

/** Tool results as the model receives them, made once per result: the same object at every step and every turn. */
const shown = new WeakMap<Message, { limit: number; message: Message }>();

function shownResult(m: Message & { role: "tool" }, limit: number): Message {
  const found = shown.get(m);
  if (found?.limit === limit) return found.message;
  const content = cut(m.content, limit);
  const message = content === m.content ? m : { ...m, content };
  shown.set(m, { limit, message });
  return message;
}

const NOT_RUN = "ToolError: this call was not run: the turn stopped before it.";

/** How far a history was turned into what the model receives: kept for a history that only grows. */
interface Progress {
  limit: number;
  length: number;
  last: Message | undefined;
  out: Message[];
  /** Calls of the last assistant message still without a result. */
  open: { callId: string; toolName: string }[];
}

/** Histories seen before (a running turn's messages, appended to as it goes): each step converts only what is new. */
const progress = new WeakMap<readonly Message[], Progress>();

/**
 * The history as a model receives it: tool results over `maxToolResultChars` are cut with a
 * marker, and a call left without a result (an aborted turn) gets one, because providers refuse
 * a tool call that has no answer.
 */
export function modelHistory(history: readonly Message[], maxToolResultChars: number): Message[] {
  let p = progress.get(history);
  const grown = p && p.limit === maxToolResultChars && history.length >= p.length && history[p.length - 1] === p.last;
  if (!p || !grown) {
    p = { limit: maxToolResultChars, length: 0, last: undefined, out: [], open: [] };
    progress.set(history, p);
  }
  for (let i = p.length; i < history.length; i++) add(p, history[i]!);
  p.length = history.length;
  p.last = history[history.length - 1];
  return [...p.out, ...notRun(p.open)];
}

function add(p: Progress, m: Message): void {
  if (m.role === "tool") {
    p.open = p.open.filter((c) => c.callId !== m.callId);
    p.out.push(shownResult(m, p.limit));
    return;
  }
  p.out.push(...notRun(p.open));
  p.open = m.role === "assistant" ? m.toolCalls.map((c) => ({ callId: c.callId, toolName: c.toolName })) : [];
  p.out.push(m);
}

const notRun = (open: readonly { callId: string; toolName: string }[]): Message[] =>
  open.map((c) => ({ role: "tool", callId: c.callId, toolName: c.toolName, content: NOT_RUN, isError: true }));
