import { cutText, type Message } from "@gatehouse/protocol";

/** The marker that ends a tool result cut for the model; the whole result stays in the session's history. */
export function cutMarker(shown: number, total: number): string {
  return `\n[... cut: ${total - shown} of ${total} characters not shown]`;
}

function cut(content: string, limit: number): string {
  return cutText(content, limit, (total) => cutMarker(limit, total)).text;
}

const NOT_RUN = "ToolError: this call was not run: the turn stopped before it.";

/**
 * The history as a model receives it: tool results over `maxToolResultChars` are cut with a
 * marker, and a call left without a result (an aborted turn) gets one, because providers refuse
 * a tool call that has no answer.
 */
export function modelHistory(history: readonly Message[], maxToolResultChars: number): Message[] {
  const out: Message[] = [];
  let open: { callId: string; toolName: string }[] = [];
  const closeOpen = () => {
    for (const c of open) out.push({ role: "tool", callId: c.callId, toolName: c.toolName, content: NOT_RUN, isError: true });
    open = [];
  };
  for (const m of history) {
    if (m.role === "tool") {
      open = open.filter((c) => c.callId !== m.callId);
      out.push({ ...m, content: cut(m.content, maxToolResultChars) });
      continue;
    }
    closeOpen();
    out.push(m);
    if (m.role === "assistant") open = m.toolCalls.map((c) => ({ callId: c.callId, toolName: c.toolName }));
  }
  closeOpen();
  return out;
}
