import type { Decision } from "@gatehouse/policy";

/**
 * A call of a tool its session cannot run: the worker does not have it (a name the model made up
 * or remembered, an MCP server's tool before that server has started or after it stopped, `task`
 * where the session may not spawn). Nobody could make it run, so it is denied at once with why,
 * never asked.
 */
export function missingToolReason(workerId: string, tool: string): string {
  return (
    `worker ${workerId} has no tool named ${tool}: only the tools offered to the model can run ` +
    "(an MCP server's tools are offered once the server has started)"
  );
}

/** The gate's decision for such a call, turned into a denial with its reason; its subject and tier stay. */
export function missingToolDecision(base: Decision, reason: string): Decision {
  return { ...base, action: "deny", ruleAction: "deny", layer: null, rule: null, pattern: null, critical: null, reason };
}
