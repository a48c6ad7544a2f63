import type { ApprovalRequired, Decision, GatehouseEvent, SessionInfo } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { ConsoleState } from "../src/state.js";

const at = "2026-01-01T00:00:00.000Z";
const session = (id: string, parentId: string | null = null, agent = "general"): SessionInfo => ({
  id,
  workerId: "w1",
  agent,
  model: "scripted",
  mode: "default",
  parentId,
  createdAt: at,
  status: "idle",
});
const decision: Decision = {
  action: "ask",
  tool: "write_file",
  layer: "static",
  rule: null,
  pattern: null,
  subject: "a.txt",
  reason: "asks",
  tier: "write",
  mode: "default",
  ruleAction: "ask",
  critical: null,
  subcommands: [],
};
const ask = (approvalId: string, sessionId: string, callId = `c-${approvalId}`): ApprovalRequired => ({
  type: "tool_approval_required",
  approvalId,
  sessionId,
  at,
  toolName: "write_file",
  arguments: "{}",
  callId,
  tier: "write",
  decision,
  reason: "asks",
  suggestedPattern: "a.txt",
  suggestedPatterns: ["a.txt"],
  batch: { index: 0, total: 1, remaining: [] },
  presentation: null,
});
const resolved = (approvalId: string, sessionId: string, outcome: "approved" | "denied" | "cancelled" = "approved"): GatehouseEvent => ({
  type: "tool_approval_resolved",
  approvalId,
  sessionId,
  at,
  callId: `c-${approvalId}`,
  outcome,
  by: "ada",
  scope: "once",
  pattern: null,
  feedback: null,
});

describe("the console's state", () => {
  it("keeps an approval until it resolves, and a replay of it after that does not bring it back", () => {
    const s = new ConsoleState();
    s.apply({ type: "session_created", sessionId: "p", at, session: session("p") });
    s.apply(ask("a1", "p"));
    expect([...s.approvals.keys()]).toEqual(["a1"]);
    s.apply(resolved("a1", "p"));
    s.apply(ask("a1", "p"));
    expect(s.approvals.size).toBe(0);
    expect(s.transcript("p")).toMatchObject([{ kind: "tool", status: "running", why: "approved by ada" }]);
  });

  it("gives a call whose id the model reused an entry of its own, and matches arguments however they are spaced", () => {
    const s = new ConsoleState();
    s.apply({ type: "session_created", sessionId: "p", at, session: session("p") });
    const started = (args: string): GatehouseEvent => ({
      type: "tool_call_started",
      sessionId: "p",
      at,
      callId: "c1",
      toolName: "shell_exec",
      arguments: args,
      decision: null,
    });
    s.apply(started('{"command": "ls"}'));
    s.apply(started('{"command":"ls"}'));
    s.apply({ type: "tool_result", sessionId: "p", at, callId: "c1", toolName: "shell_exec", outcome: "ok", ok: true, output: "a", elapsedMs: 1 });
    s.apply(started('{"command":"mv build .trash"}'));
    expect(s.transcript("p").map((e) => (e.kind === "tool" ? [e.args, e.status] : e.kind))).toEqual([
      ['{"command": "ls"}', "done"],
      ['{"command":"mv build .trash"}', "running"],
    ]);
  });

  it("names a subagent's approval by its agent path and counts it in its top session's family", () => {
    const s = new ConsoleState();
    s.putSessions([session("p"), session("c", "p", "explore"), session("g", "c", "general"), session("other")]);
    expect(s.agentPath("g")).toBe("explore › general");
    expect(s.agentPath("p")).toBe("");
    expect([...s.family("p")].sort()).toEqual(["c", "g", "p"]);
    expect(s.children(null).map((x) => x.id)).toEqual(["p", "other"]);
  });

  it("streams text into one message, then settles it with the calls it made and their outcome", () => {
    const s = new ConsoleState();
    s.putSessions([session("p")]);
    s.apply({ type: "user_message", sessionId: "p", at, text: "go" });
    expect(s.sessions.get("p")!.status).toBe("running");
    s.apply({ type: "assistant_text_delta", sessionId: "p", at, text: "Wri" });
    s.apply({ type: "assistant_text_delta", sessionId: "p", at, text: "ting" });
    expect(s.transcript("p")[1]).toEqual({ kind: "assistant", text: "Writing", streaming: true });
    s.apply({
      type: "assistant_message",
      sessionId: "p",
      at,
      stopReason: "tool-calls",
      usage: { inputTokens: null, outputTokens: null },
      message: { role: "assistant", text: "Writing.", toolCalls: [{ callId: "c1", toolName: "write_file", arguments: "{}" }] },
    });
    s.apply({
      type: "tool_result",
      sessionId: "p",
      at,
      callId: "c1",
      toolName: "write_file",
      outcome: "rejected",
      ok: false,
      output: "ToolRejectedError: no",
      elapsedMs: 3,
    });
    s.apply({ type: "turn_ended", sessionId: "p", at, reason: "completed", usage: { inputTokens: null, outputTokens: null } });
    expect(s.transcript("p").slice(1)).toMatchObject([
      { kind: "assistant", text: "Writing.", streaming: false },
      { kind: "tool", callId: "c1", status: "denied", output: "ToolRejectedError: no" },
    ]);
    expect(s.sessions.get("p")!.status).toBe("idle");
  });
});
