import type { GatehouseEvent } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { applyEvent, emptyView, shellRunning, type SessionView } from "../src/session-view.js";
import { approval, decision } from "./fixtures.js";

const at = "2026-11-21T00:00:00.000Z";
const base = { sessionId: "s1", at };
const usage = { inputTokens: null, outputTokens: null };
/** An explore subagent of session s1: its events' base, and its session. */
const child = { sessionId: "c9", at };
const info = {
  id: "c9",
  workerId: "w1",
  agent: "explore",
  model: "scripted",
  mode: "default" as const,
  parentId: "s1",
  createdAt: at,
  status: "running" as const,
};
const fold = (events: GatehouseEvent[], view: SessionView = emptyView()) => events.reduce(applyEvent, view);
const assistant = (text: string, calls: [string, string, object][] = []): GatehouseEvent => ({
  type: "assistant_message",
  ...base,
  message: { role: "assistant", text, toolCalls: calls.map(([callId, toolName, args]) => ({ callId, toolName, arguments: JSON.stringify(args) })) },
  stopReason: calls.length > 0 ? "tool-calls" : "stop",
  usage,
});

describe("the session view", () => {
  it("streams text, then lists the batch's calls and follows each to its result", () => {
    const v = fold([
      { type: "user_message", ...base, text: "go" },
      { type: "assistant_text_delta", ...base, text: "Look" },
      { type: "assistant_text_delta", ...base, text: "ing." },
      assistant("Looking.", [
        ["c1", "read_file", { path: "a.txt" }],
        ["c2", "shell_exec", { command: "cat .env" }],
      ]),
      {
        type: "tool_call_started",
        ...base,
        callId: "c1",
        toolName: "read_file",
        arguments: JSON.stringify({ path: "a.txt" }),
        decision: decision({
          action: "allow",
          rule: { layer: "static", tool: "read_file", pattern: "*", action: "allow", origin: "person", file: "p.jsonc", line: 3, column: 5 },
        }),
      },
      { type: "tool_result", ...base, callId: "c1", toolName: "read_file", outcome: "ok", ok: true, output: "hello", elapsedMs: 1 },
      { type: "tool_result", ...base, callId: "c2", toolName: "shell_exec", outcome: "denied", ok: false, output: "ToolDeniedError: no", elapsedMs: 1 },
    ]);
    expect(v.turnRunning).toBe(true);
    expect(v.items).toEqual([
      { kind: "user", text: "go" },
      { kind: "assistant", text: "Looking.", streaming: false },
      { kind: "call", callId: "c1", title: "read_file a.txt", status: "done", because: 'static rule read_file "*" (p.jsonc:3:5)', output: "hello" },
      { kind: "call", callId: "c2", title: "shell_exec cat .env", status: "denied", because: null, output: "ToolDeniedError: no" },
    ]);
  });

  it("shows a connection a person let through as done, not cancelled when the turn ends", () => {
    const ask = approval({
      callId: "network-1",
      approvalId: "n1",
      toolName: "network",
      arguments: JSON.stringify({ host: "example.org", port: 443, command: "curl" }),
    });
    const v = fold([
      ask,
      {
        type: "tool_approval_resolved",
        ...base,
        approvalId: "n1",
        callId: "network-1",
        outcome: "approved",
        by: "ada",
        scope: "once",
        pattern: null,
        feedback: null,
      },
      { type: "turn_ended", ...base, reason: "completed", usage },
    ]);
    expect(v.items.find((i) => i.kind === "call")).toMatchObject({ status: "done", because: "approved by ada" });
  });

  it("never shows one call for another when the model gives two calls one id", () => {
    const started = (command: string): GatehouseEvent => ({
      type: "tool_call_started",
      ...base,
      callId: "c1",
      toolName: "shell_exec",
      arguments: JSON.stringify({ command }),
      decision: decision({ action: "allow" }),
    });
    const result = (output: string): GatehouseEvent => ({
      type: "tool_result",
      ...base,
      callId: "c1",
      toolName: "shell_exec",
      outcome: "ok",
      ok: true,
      output,
      elapsedMs: 1,
    });
    const v = fold([
      assistant("First.", [["c1", "shell_exec", { command: "ls" }]]),
      started("ls"),
      result("a b"),
      assistant("Second.", [["c1", "shell_exec", { command: "mv build .trash" }]]),
      started("mv build .trash"),
      started("mv build .trash"),
      result("moved"),
    ]);
    const calls = v.items.filter((i) => i.kind === "call");
    expect(calls.map((c) => [c.title, c.status, c.output])).toEqual([
      ["shell_exec ls", "done", "a b"],
      ["shell_exec mv build .trash", "done", "moved"],
    ]);
  });

  it("queues approvals once each, even when a reconnect sends them again, and drops them when resolved", () => {
    const a = approval({ callId: "c1" });
    const b = approval({ callId: "c2" });
    const v = fold([a, b, a]);
    expect(v.pending.map((p) => p.approvalId)).toEqual([a.approvalId, b.approvalId]);
    const after = applyEvent(v, {
      type: "tool_approval_resolved",
      ...base,
      approvalId: a.approvalId,
      callId: "c1",
      outcome: "denied",
      by: "ada",
      scope: null,
      pattern: null,
      feedback: "not now",
    });
    expect(after.pending.map((p) => p.approvalId)).toEqual([b.approvalId]);
    expect(after.items.find((i) => i.kind === "call" && i.callId === "c1")).toMatchObject({ status: "denied", because: "denied by ada: not now" });
  });

  it("a compacted context is a notice that says the history is kept", () => {
    const v = fold([
      {
        type: "context_compacted",
        ...base,
        reason: "window",
        summarisedThrough: 120,
        trimmedThrough: 150,
        summary: "The user asked for a refactor.",
        refusals: [],
        tokensBefore: 104_000,
        tokensAfter: 31_000,
      },
    ]);
    expect(v.items.at(-1)).toEqual({
      kind: "notice",
      tone: "info",
      text: "context compacted (the session neared the model's context window): messages before #121 summarised into a checkpoint, about 104000 → 31000 tokens; the whole history is kept",
    });
  });

  it("a turn that ends clears what was pending and cancels calls that never ran", () => {
    const v = fold([
      { type: "user_message", ...base, text: "go" },
      assistant("", [["c1", "shell_exec", { command: "ls" }]]),
      approval({ callId: "c1" }),
      { type: "turn_ended", ...base, reason: "aborted", usage },
    ]);
    expect(v.pending).toEqual([]);
    expect(v.turnRunning).toBe(false);
    expect(v.items.find((i) => i.kind === "call")).toMatchObject({ status: "cancelled" });
    expect(v.items.at(-1)).toEqual({ kind: "notice", tone: "warn", text: "turn ended: aborted" });
  });

  it("a call that never ran because an earlier one was denied hard is cancelled, not denied", () => {
    const v = fold([
      { type: "user_message", ...base, text: "go" },
      assistant("", [
        ["c1", "shell_exec", { command: "rm x" }],
        ["c2", "shell_exec", { command: "ls" }],
      ]),
      approval({ callId: "c1", approvalId: "a1", arguments: JSON.stringify({ command: "rm x" }) }),
      { type: "tool_approval_resolved", ...base, approvalId: "a1", callId: "c1", outcome: "denied", by: "ada", scope: null, pattern: null, feedback: null },
      { type: "tool_result", ...base, callId: "c1", toolName: "shell_exec", outcome: "rejected", ok: false, output: "ToolRejectedError: no", elapsedMs: 1 },
      { type: "tool_result", ...base, callId: "c2", toolName: "shell_exec", outcome: "rejected", ok: false, output: "ToolRejectedError: batch", elapsedMs: 1 },
      { type: "turn_ended", ...base, reason: "rejected", usage },
    ]);
    expect(v.items.filter((i) => i.kind === "call").map((i) => [i.callId, i.status])).toEqual([
      ["c1", "denied"],
      ["c2", "cancelled"],
    ]);
  });

  it("follows a person's command from its start through its output to its end, keyed by its id", () => {
    const cmd = { ...base, commandId: "k1" };
    const running = fold([
      { type: "shell_started", ...cmd, command: "make", by: "ada" },
      { type: "shell_output", ...cmd, text: "one\n" },
      { type: "shell_output", ...cmd, text: "two\n" },
    ]);
    expect(shellRunning(running)).toBe(true);
    expect(running.items).toEqual([{ kind: "shell", commandId: "k1", command: "make", running: true, exitCode: null, output: "one\ntwo\n" }]);
    const ended = applyEvent(running, { type: "shell_command", ...cmd, command: "make", exitCode: 2, output: "one\ntwo\n", stderr: "bad", by: "ada" });
    expect(shellRunning(ended)).toBe(false);
    expect(ended.items).toEqual([{ kind: "shell", commandId: "k1", command: "make", running: false, exitCode: 2, output: "one\ntwo\n\n--- stderr ---\nbad" }]);
  });

  it("orders entries by when they ended: a subagent's calls before its task, even when they all end at once", () => {
    const read = JSON.stringify({ path: "a.md" });
    const v = fold(
      [
        { type: "user_message", ...base, text: "go" },
        assistant("", [["t1", "task", { agent: "explore", prompt: "look" }]]),
        { type: "tool_call_started", ...base, callId: "t1", toolName: "task", arguments: JSON.stringify({ agent: "explore", prompt: "look" }), decision: null },
        { type: "session_created", ...child, session: info },
        {
          type: "assistant_message",
          ...child,
          message: { role: "assistant", text: "", toolCalls: [{ callId: "r1", toolName: "read_file", arguments: read }] },
          stopReason: "tool-calls",
          usage,
        },
        { type: "tool_result", ...child, callId: "r1", toolName: "read_file", outcome: "ok", ok: true, output: "A", elapsedMs: 1 },
        { type: "turn_ended", ...child, reason: "completed", usage },
        { type: "tool_result", ...base, callId: "t1", toolName: "task", outcome: "ok", ok: true, output: "seen", elapsedMs: 1 },
      ],
      emptyView("default", "s1"),
    );
    const order = v.ended.map((i) => v.items[i]!).map((i) => (i.kind === "call" ? i.title : i.kind === "notice" ? i.text.split(" (")[0] : i.kind));
    expect(order).toEqual(["user", "subagent explore started", "explore › read_file a.md", "subagent explore ended: completed", "task explore: look"]);
  });

  it("says when the worker goes offline and when the permissions file is invalid, with file:line:col", () => {
    const v = fold([
      { type: "worker_disconnected", ...base, workerId: "w1" },
      { type: "permissions_invalid", ...base, workerId: "w1", file: "/d/permissions.jsonc", line: 4, column: 9, message: "expected a comma" },
      { type: "mode_changed", ...base, mode: "strict" },
    ]);
    expect(v.workerOnline).toBe(false);
    expect(v.mode).toBe("strict");
    expect(v.items.map((i) => (i.kind === "notice" ? i.text : ""))).toEqual([
      "worker w1 is offline",
      "permissions file invalid: /d/permissions.jsonc:4:9: expected a comma (every call asks until it is fixed)",
      "mode: strict",
    ]);
  });

  it("shows a subagent's calls and asks under its agent type, leaves out its text, and does not end the turn with it", () => {
    const ask = approval({ sessionId: "c9", callId: "call_1_0", toolName: "read_file", arguments: JSON.stringify({ path: "notes.md" }) });
    const v = fold(
      [
        { type: "user_message", ...base, text: "go" },
        assistant("", [["call_1_0", "task", { agent: "explore", prompt: "look" }]]),
        { type: "session_created", ...child, session: info },
        { type: "user_message", ...child, text: "look" },
        { type: "assistant_text_delta", ...child, text: "child text" },
        {
          type: "assistant_message",
          ...child,
          message: {
            role: "assistant",
            text: "child text",
            toolCalls: [{ callId: "call_1_0", toolName: "read_file", arguments: JSON.stringify({ path: "notes.md" }) }],
          },
          stopReason: "tool-calls",
          usage,
        },
        ask,
        { type: "turn_ended", ...child, reason: "completed", usage },
      ],
      emptyView("default", "s1"),
    );
    expect(v.subagents).toEqual({ c9: "explore" });
    expect(v.pending.map((p) => p.approvalId)).toEqual([ask.approvalId]);
    expect(v.turnRunning).toBe(true);
    expect(v.items.filter((i) => i.kind === "call").map((i) => [i.callId, i.title, i.status])).toEqual([
      ["call_1_0", "task explore: look", "queued"],
      ["c9/call_1_0", "explore › read_file notes.md", "asking"],
    ]);
    expect(v.items.some((i) => i.kind === "assistant" && i.text.includes("child text"))).toBe(false);
    expect(v.items.filter((i) => i.kind === "notice").map((i) => i.text)).toEqual([
      "subagent explore started (session c9)",
      "subagent explore ended: completed",
    ]);
  });
});
