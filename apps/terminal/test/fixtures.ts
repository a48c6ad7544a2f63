import type { ApprovalRequired, Decision } from "@gatehouse/protocol";

export const decision = (over: Partial<Decision> = {}): Decision => ({
  action: "ask",
  tool: "shell_exec",
  layer: "static",
  rule: { layer: "static", tool: "shell_exec", pattern: "*", action: "ask", origin: "person", file: "/data/permissions.jsonc", line: 11, column: 5 },
  pattern: "*",
  subject: "git push",
  reason: "the rules ask for shell commands",
  tier: "exec",
  mode: "default",
  ruleAction: "ask",
  critical: null,
  subcommands: [],
  ...over,
});

let n = 0;
export function approval(over: Partial<ApprovalRequired> = {}): ApprovalRequired {
  n++;
  return {
    type: "tool_approval_required",
    approvalId: `approval-${n}`,
    toolName: "shell_exec",
    arguments: JSON.stringify({ command: `git push origin feature-${n}` }),
    sessionId: "s1",
    at: "2026-11-21T00:00:00.000Z",
    callId: `call-${n}`,
    tier: "exec",
    decision: decision(),
    reason: "the rules ask for shell commands",
    suggestedPattern: "git push *",
    suggestedPatterns: ["git push *"],
    batch: { index: 0, total: 1, remaining: [] },
    presentation: { kind: "command", content: `git push origin feature-${n}`, cwd: "/work/project", truncated: false, fullSize: 10 },
    ...over,
  };
}

/**
 * Lets a key's render and its effects happen. React runs them from setImmediate; on a busy
 * machine a timer alone can fire first, while the next stage's input handler is not yet there.
 */
export const tick = async () => {
  await new Promise((r) => setTimeout(r, 30));
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
};

/** Waits until a rendered prompt shows its keys: it takes no answer in its first moment. */
export async function untilAnswerable(frame: () => string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (frame().includes("keys in a moment") && Date.now() < deadline) await tick();
}
