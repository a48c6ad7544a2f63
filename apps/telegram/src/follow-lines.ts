import type { GatehouseEvent } from "@gatehouse/protocol";
import { describeCall } from "@gatehouse/client-text";
import { cut, esc, escShown } from "./html.js";

const firstLine = (text: string) => text.trim().split("\n", 1)[0] ?? "";

/** A followed session's event as one compact HTML line; null for what a chat need not see. */
export function followLine(e: GatehouseEvent): string | null {
  switch (e.type) {
    case "user_message":
      return `› ${esc(cut(e.text, 300))}`;
    case "assistant_message": {
      const text = e.message.role === "assistant" ? e.message.text.trim() : "";
      return text ? `💬 ${esc(cut(text, 1500))}` : null;
    }
    case "tool_call_started":
      return `▸ ${escShown(describeCall(e.toolName, e.arguments, 120))}`;
    case "tool_result":
      return e.ok ? `✓ ${esc(e.toolName)} (${(e.elapsedMs / 1000).toFixed(1)} s)` : `✗ ${esc(e.toolName)}: ${esc(cut(firstLine(e.output), 200))}`;
    case "turn_ended":
      return `— turn ${e.reason}`;
    case "session_error":
      return `⚠ ${esc(e.code)}: ${esc(cut(e.message, 500))}`;
    case "mode_changed":
      return `mode: ${e.mode}`;
    case "shell_command":
      return `$ ${esc(cut(e.command, 200))} → exit ${e.exitCode ?? "none"} (by ${esc(e.by)})`;
    case "worker_connected":
      return `worker ${esc(e.workerId)} connected`;
    case "worker_disconnected":
      return `worker ${esc(e.workerId)} disconnected`;
    case "permissions_invalid":
      return `⚠ ${esc(e.file)}:${e.line}:${e.column}: ${esc(cut(e.message, 300))} (every call asks until it is fixed)`;
    case "mcp_server":
      return e.problem === null
        ? `MCP server ${esc(e.server)} runs again`
        : `⚠ MCP server ${esc(e.server)} on worker ${esc(e.workerId)} ${esc(cut(e.problem, 500))}`;
    case "session_created":
      return e.session.parentId ? `subagent ${esc(e.session.agent)} started` : null;
    default:
      return null;
  }
}
