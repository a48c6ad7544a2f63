import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Events, waitUntil } from "./support/cluster.js";
import { Instances } from "./support/instances.js";
import { TestPostgres } from "./support/postgres.js";

/**
 * Edited approvals with several server instances on one PostgreSQL database: checked and answered
 * on an instance that does not run the turn, and kept when the instance that does is killed.
 */
let postgres: TestPostgres;
let set: Instances | undefined;
beforeAll(async () => void (postgres = await TestPostgres.start()), 60_000);
afterAll(() => postgres?.stop());
afterEach(async (ctx) => {
  const logs = ctx.task.result?.state === "fail" ? set?.instances.map((i) => `${i.name}:\n${i.log.slice(-20).join("\n")}`) : [];
  for (const log of logs ?? []) console.log(log);
  await set?.stop();
  set = undefined;
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
const RULES = `{"*": "ask", "shell_exec": {"*": "ask", "sleep *": "allow", "curl *": "deny"}}`;
const EDITED_PREFIX = "The user changed this shell_exec call before approving it.";

/** Instances a and b, the worker on b; a session created on a (which runs its turns), prompted, watched from b. */
async function askedOnA(calls: unknown[]) {
  set = await Instances.start(await postgres.database(), ["a", "b"], { rules: RULES });
  await set.worker("w1", "b");
  const onA = set.client("a");
  const onB = set.client("b");
  const session = await onA.session.create.mutate({ workerId: "w1", scenario: set.scenario("edit", [{ toolCalls: calls }, { text: "then {{lastResult}}" }]) });
  const watchB = new Events(onB, { sessionId: session.id });
  await watchB.started;
  await onA.agent.prompt.mutate({ sessionId: session.id, text: "go" });
  const ask = await watchB.next("tool_approval_required");
  const ran = () => fs.readFileSync(path.join(set!.workDir, "ran.txt"), "utf8");
  return { onB, sessionId: session.id, watchB, ask, ran };
}

describe("an edited approval across two instances on PostgreSQL", { timeout: 90_000 }, () => {
  it("checked and approved on the instance that does not run the turn: the edited call runs, and the gate's refusals come back whole", async () => {
    const { onB, sessionId, watchB, ask, ran } = await askedOnA([shell("echo original >> ran.txt")]);
    const edited = { command: "echo edited >> ran.txt" };
    const answer = { sessionId, approvalId: ask.approvalId };
    expect(await onB.tool.checkEdit.query({ ...answer, editedArguments: edited })).toMatchObject({
      decision: { action: "ask", critical: null },
      suggestedPatterns: ["echo *"],
    });
    await expect(onB.tool.checkEdit.query({ ...answer, editedArguments: { command: "curl http://127.0.0.1:9/" } })).rejects.toMatchObject({
      data: { code: "PRECONDITION_FAILED" },
      message: expect.stringMatching(/^the edited shell_exec call is denied: .*curl/),
    });
    await expect(onB.tool.approve.mutate({ ...answer, editedArguments: { cmd: "ls" } })).rejects.toMatchObject({
      data: { code: "BAD_REQUEST" },
      message: expect.stringMatching(/^the edited arguments do not fit the shell_exec tool: /),
    });
    expect(watchB.of("tool_approval_resolved")).toEqual([]);

    expect(await onB.tool.approve.mutate({ ...answer, editedArguments: edited })).toEqual({ applied: true });
    expect(await watchB.next("turn_ended", () => true, 15_000)).toMatchObject({ reason: "completed" });
    expect(ran()).toBe("edited\n");
    expect(watchB.of("tool_approval_resolved")).toMatchObject([{ outcome: "approved", editedArguments: JSON.stringify(edited) }]);
    expect(watchB.of("tool_call_started")).toMatchObject([{ arguments: JSON.stringify(edited) }]);
    expect(watchB.of("tool_result")[0]?.output.startsWith(EDITED_PREFIX)).toBe(true);
    expect(await onB.tool.approve.mutate(answer)).toEqual({ applied: false });
  });

  it("answered on b while an earlier call runs on a, then a killed: b takes the turn over and runs the edited call once, asking nobody again", async () => {
    const { onB, sessionId, watchB, ask, ran } = await askedOnA([shell("sleep 6"), shell("echo original >> ran.txt")]);
    await watchB.next("tool_call_started");
    const edited = { command: "echo edited >> ran.txt" };
    expect(await onB.tool.approve.mutate({ sessionId, approvalId: ask.approvalId, editedArguments: edited })).toEqual({ applied: true });
    await watchB.next("tool_approval_resolved");
    await set!.kill("a");

    expect(await watchB.next("turn_ended", () => true, 40_000)).toMatchObject({ reason: "completed" });
    expect(ran()).toBe("edited\n");
    expect([...new Set(watchB.of("tool_approval_required").map((e) => e.approvalId))]).toEqual([ask.approvalId]);
    expect(watchB.of("tool_call_started").filter((e) => e.callId === ask.callId)).toMatchObject([{ arguments: JSON.stringify(edited) }]);
    const result = watchB.of("tool_result").find((r) => r.callId === ask.callId);
    expect(result).toMatchObject({ outcome: "ok" });
    expect(result?.output.startsWith(EDITED_PREFIX)).toBe(true);
  });

  it("approved with an edit on b and started on a, then a killed: b does not run it again, and its model is told of the edit and the failure", async () => {
    const { onB, sessionId, watchB, ask, ran } = await askedOnA([shell("echo original >> ran.txt")]);
    const edited = { command: "echo edited >> ran.txt; sleep 4" };
    expect(await onB.tool.approve.mutate({ sessionId, approvalId: ask.approvalId, editedArguments: edited })).toEqual({ applied: true });
    await watchB.next("tool_call_started");
    await waitUntil(() => fs.existsSync(path.join(set!.workDir, "ran.txt")), 10_000, "the edited call's effect");
    await set!.kill("a");

    expect(await watchB.next("turn_ended", () => true, 40_000)).toMatchObject({ reason: "completed" });
    await new Promise((r) => setTimeout(r, 4000));
    expect(ran()).toBe("edited\n");
    expect(watchB.of("tool_call_started")).toHaveLength(1);
    const result = watchB.of("tool_result").find((r) => r.callId === ask.callId);
    expect(result).toMatchObject({ outcome: "failed" });
    expect(result?.output.startsWith(EDITED_PREFIX)).toBe(true);
  });
});
