import type { EventOf, McpServerStatus } from "@gatehouse/protocol";
import { now } from "../clock.js";

const headline = (problem: string | null | undefined) => problem?.split("\n", 1)[0] ?? null;

/**
 * The servers a session should hear about after a change: each that failed in a new way, and each
 * that runs again after a problem. A server failing again the same way (its restarts) is told once.
 */
export function changedServers(current: readonly McpServerStatus[], before: readonly McpServerStatus[]): McpServerStatus[] {
  return current.filter((s) => {
    const was = before.find((b) => b.name === s.name)?.problem;
    return s.problem === null ? was != null : headline(was) !== headline(s.problem);
  });
}

/** The event that tells a session of one server's state. */
export function mcpServerNotice(sessionId: string, workerId: string, status: McpServerStatus): EventOf<"mcp_server"> {
  return { type: "mcp_server", sessionId, at: now(), workerId, server: status.name, problem: status.problem };
}
