import type { GatehouseEvent } from "@gatehouse/protocol";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApprovalGate } from "../../src/gate/approval-gate.js";
import { BUILTIN_AGENTS } from "../../src/runner/agents.js";
import { TASK_TOOL, taskTool } from "../../src/runner/task-tool.js";
import { gateFixture, scriptedRunner } from "../in-process.js";

let f: ReturnType<typeof gateFixture>;
beforeAll(() => ApprovalGate.ready());
afterEach(() => f.close());

const runnerFor = (steps: unknown[]) => scriptedRunner(f, steps);

const ofType = async <T extends GatehouseEvent["type"]>(type: T) =>
  (await f.store.eventsAfter(0)).map((e) => e.event).filter((e): e is Extract<GatehouseEvent, { type: T }> => e.type === type);

describe("the agent runner, in process", () => {
  it("runs a turn: allowed calls reach the worker, denied ones do not, and each result has its outcome", async () => {
    f = gateFixture(`{ "*": "ask", "shell_exec": { "echo *": "allow", "rm *": "deny" } }`);
    const ran: string[] = [];
    f.serveWorker((m) => (ran.push(String(m.args.command)), { ok: true, output: "hi\n", exitCode: 0 }));
    const runner = runnerFor([
      {
        text: "go",
        toolCalls: [
          { tool: "shell_exec", args: { command: "echo hi" } },
          { tool: "shell_exec", args: { command: "rm -rf x" } },
        ],
      },
      { text: "done: {{lastResult}}" },
    ]);
    const end = await runner.runTurn(f.session(), "start", new AbortController());
    expect(end).toBe("completed");
    expect(ran).toEqual(["echo hi"]);
    expect((await ofType("tool_result")).map((r) => [r.outcome, r.exitCode])).toEqual([
      ["ok", 0],
      ["denied", undefined],
    ]);
    expect((await f.store.messages("s1")).find((m) => m.role === "tool")).toMatchObject({ content: "hi\n\nexit code: 0", isError: false });
  });

  it("holds an ask until a person answers, and a hard deny rejects the rest of the batch", async () => {
    f = gateFixture(`{ "*": "ask" }`);
    f.serveWorker(() => ({ ok: true, output: "ran" }));
    const runner = runnerFor([
      {
        text: "go",
        toolCalls: [
          { tool: "shell_exec", args: { command: "make" } },
          { tool: "read_file", args: { path: "a" } },
        ],
      },
      { text: "not reached" },
    ]);
    const s = f.session();
    const turn = runner.runTurn(s, "start", new AbortController());
    await new Promise((r) => setTimeout(r, 20));
    const asks = await ofType("tool_approval_required");
    expect(asks.map((a) => a.batch.index)).toEqual([0, 1]);
    await f.gate.deny("ada", { sessionId: s.id, approvalId: asks[0]!.approvalId, mode: "hard" });
    expect(await turn).toBe("rejected");
    expect((await ofType("tool_result")).map((r) => r.outcome)).toEqual(["rejected", "rejected"]);
  });

  it("a turn whose session another instance took over while a call ran is left without a word: the call's result and the turn's end are the other's to say", async () => {
    f = gateFixture(`{ "shell_exec": "allow" }`);
    let owned = true;
    f.serveWorker(() => ((owned = false), { ok: true, output: "ran", exitCode: 0 }));
    const runner = scriptedRunner(f, [{ text: "go", toolCalls: [{ tool: "shell_exec", args: { command: "make" } }] }, { text: "not reached" }], {
      stillOwns: async () => owned,
    });
    const s = f.session();
    expect(await runner.runTurn(s, "start", new AbortController())).toBe("aborted");
    expect(runner.isRunning(s.id)).toBe(false);
    expect((await ofType("tool_call_started")).length).toBe(1);
    expect(await ofType("tool_result")).toEqual([]);
    expect(await ofType("turn_ended")).toEqual([]);
    expect((await f.store.messages(s.id)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a turn whose session was taken over before its next step asks the model nothing more", async () => {
    f = gateFixture(`{ "shell_exec": "allow" }`);
    let checks = 0;
    f.serveWorker(() => ({ ok: true, output: "ran", exitCode: 0 }));
    // Owned for the first step and its call's three checks; taken before the second step.
    const runner = scriptedRunner(f, [{ text: "go", toolCalls: [{ tool: "shell_exec", args: { command: "make" } }] }, { text: "not reached" }], {
      stillOwns: async () => ++checks <= 4,
    });
    const s = f.session();
    expect(await runner.runTurn(s, "start", new AbortController())).toBe("aborted");
    expect((await ofType("tool_result")).map((r) => r.outcome)).toEqual(["ok"]);
    expect(await ofType("turn_ended")).toEqual([]);
    expect((await f.store.messages(s.id)).map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("a subagent's turn taken over leaves its parent's turn too: neither turn's end, the task's result nor the subagent's closing is said", async () => {
    f = gateFixture(`{ "*": "allow" }`);
    const s = f.session();
    const runner = scriptedRunner(
      f,
      [{ text: "delegating", toolCalls: [{ tool: TASK_TOOL, args: { agent: "explore", prompt: "look around" } }] }, { text: "not reached" }],
      {
        toolsFor: async () => [taskTool(BUILTIN_AGENTS)],
        stillOwns: async (id) => id === s.id,
      },
    );
    expect(await runner.runTurn(s, "start", new AbortController())).toBe("aborted");
    const [child] = (await ofType("session_created")).map((e) => e.session);
    expect(child?.parentId).toBe(s.id);
    expect((await f.store.getSession(child!.id))?.status).toBe("running");
    expect(await ofType("tool_result")).toEqual([]);
    expect(await ofType("turn_ended")).toEqual([]);
  });

  it("an abort cancels the pending approval and ends the turn as aborted", async () => {
    f = gateFixture(`{ "*": "ask" }`);
    const runner = runnerFor([{ text: "go", toolCalls: [{ tool: "shell_exec", args: { command: "make" } }] }]);
    const s = f.session();
    const turn = runner.runTurn(s, "start", new AbortController());
    await new Promise((r) => setTimeout(r, 20));
    expect(await runner.abort(s.id, "ada")).toBe(true);
    expect(await turn).toBe("aborted");
    expect(await ofType("tool_approval_resolved")).toMatchObject([{ outcome: "cancelled", by: "ada" }]);
  });
});
