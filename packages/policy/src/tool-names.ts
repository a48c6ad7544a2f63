import { NETWORK_TOOL } from "./network/network-tool.js";

/** The tools every worker offers (and the server's `task`); a rule for any other name is an MCP tool's or a slip. */
export const BUILT_IN_TOOLS: readonly string[] = ["read_file", "write_file", "edit_file", "glob", "grep", "skill", "shell_exec", "task"];

/** An MCP tool's name as a worker offers it: `{server}_{tool}`, the server's name holding letters, digits and `-`. */
const MCP_TOOL_NAME = /^[A-Za-z0-9-]{1,32}_[A-Za-z0-9_-]+$/;

/** How many single-letter edits turn one name into the other. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The built-in tool a name is probably a slip for, letter case aside: its start (`shell`), or a
 * name one edit away per four letters (`read_fiel`; `shell` is not a slip for `skill`).
 */
function nearestBuiltIn(name: string): string | null {
  const lower = name.toLowerCase();
  if (lower.length >= 4) {
    const start = BUILT_IN_TOOLS.find((tool) => tool.startsWith(lower));
    if (start) return start;
  }
  let best: { tool: string; distance: number } | null = null;
  for (const tool of BUILT_IN_TOOLS) {
    const distance = editDistance(lower, tool);
    if (distance <= Math.max(1, Math.floor(tool.length / 4)) && (!best || distance < best.distance)) best = { tool, distance };
  }
  return best?.tool ?? null;
}

/**
 * Why a rule's tool name names no tool any worker has, or null. A name shaped like an MCP tool's
 * is taken as one unless it is a near miss of a built-in name (`read_fille`).
 */
export function unknownToolName(name: string): string | null {
  // `network` is no tool but the rules of the hosts sandboxed commands reach.
  if (BUILT_IN_TOOLS.includes(name) || name === NETWORK_TOOL) return null;
  const near = nearestBuiltIn(name);
  if (!near && MCP_TOOL_NAME.test(name)) return null;
  const hint = near ? `did you mean ${near}?` : `the built-in tools are ${BUILT_IN_TOOLS.join(", ")}; MCP tools are named {server}_{tool}`;
  return `no worker has a tool named "${name}": ${hint}`;
}
