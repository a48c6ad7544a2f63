import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, type Events, waitUntil } from "./support/cluster.js";

/**
 * An approval kept across kill -9 of the server (embedded store), edited or not: the call runs
 * as answered, once, and the model hears of an edit; nobody is asked again.
 */
let cluster: Cluster | undefined;
afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.log(cluster?.serverLog.slice(-30).join("\n"));
  await cluster?.stop();
  cluster = undefined;
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
const EDITED_PREFIX = "The user changed this shell_exec call before approving it.";

/** A session asked about `calls`' asking call, approved (with `edited` arguments, when given), then the server killed once `killWhen` holds. */
async function approvedThenKilled(rules: string, calls: unknown[], edited: Record<string, unknown> | undefined, killWhen: (events: Events) => boolean) {
  const c = (cluster = await Cluster.start({ rules }));
  const client = c.client();
  const s = await c.promptedSession(client, [{ text: "Working.", toolCalls: calls }, { text: "Told: {{lastResult}}" }]);
  const ask = await s.events.next("tool_approval_required");
  const answer = { sessionId: s.id, approvalId: ask.approvalId, ...(edited && { editedArguments: edited }) };
  expect(await client.tool.approve.mutate(answer)).toEqual({ applied: true });
  await waitUntil(() => killWhen(s.events), 10_000, "the moment to kill the server");
  await c.restartServer();
  expect((await s.events.next("turn_ended", () => true, 30_000)).reason).toBe("completed");
  const asked = [...new Set(s.events.of("tool_approval_required").map((e) => e.approvalId))];
  return { c, client, s, ask, answer, asked, ran: () => fs.readFileSync(path.join(c.workDir, "ran.txt"), "utf8") };
}

describe("an approval kept across kill -9 of the server", { timeout: 60_000 }, () => {
  it("an edit answered while an earlier call of the batch ran: the edited call runs once after the restart, never the original; the model is told", async () => {
    const edited = { command: "echo edited >> ran.txt" };
    const { client, s, ask, answer, asked, ran } = await approvedThenKilled(
      `{ "*": "ask", "shell_exec": { "sleep *": "allow" } }`,
      [shell("sleep 5"), shell("echo original >> ran.txt")],
      edited,
      (events) => events.of("tool_call_started").length > 0,
    );
    expect(ran()).toBe("edited\n");
    expect(asked).toEqual([ask.approvalId]);
    expect(s.events.of("tool_call_started").filter((e) => e.callId === ask.callId)).toMatchObject([{ arguments: JSON.stringify(edited) }]);
    const result = s.events.of("tool_result").find((r) => r.callId === ask.callId);
    expect(result).toMatchObject({ outcome: "ok" });
    expect(result?.output).toMatch(
      /^The user changed this shell_exec call before approving it\. Your arguments: \{"command":"echo original >> ran.txt"\}\. The arguments it ran with instead: \{"command":"echo edited >> ran.txt"\}\./,
    );
    const history = await client.session.get.query({ sessionId: s.id });
    const told = history.history.find((m) => m.role === "tool" && m.callId === ask.callId);
    expect(told?.role === "tool" && told.content.startsWith(EDITED_PREFIX)).toBe(true);
    // The answer is spent: the same edit again is refused, and nothing more runs.
    await expect(client.tool.approve.mutate(answer)).rejects.toThrow(/not pending|already answered/);
    const audit = await client.audit.query.query({ sessionId: s.id });
    expect(audit.filter((e) => e.action === "edited").map((e) => [e.by, e.arguments])).toEqual([["ada", JSON.stringify(edited)]]);
    expect(ran()).toBe("edited\n");
  });

  // A kept answer once let a started call run a second time after the restart: an edited one and a plain one alike.
  it.each([
    ["an edited call", { command: "echo edited >> ran.txt; sleep 3" }, "edited\n"],
    ["a call approved as it is", undefined, "original\n"],
  ])("%s that had started when the server was killed is not run again; the model is told it failed (and of an edit)", async (_, edited, effect) => {
    // Started means its first effect is there: the file holds its line (bash makes the file before it writes).
    const { s, ask, asked, ran } = await approvedThenKilled(
      `{ "*": "ask" }`,
      [shell("echo original >> ran.txt; sleep 3")],
      edited,
      () => (fs.statSync(path.join(cluster!.workDir, "ran.txt"), { throwIfNoEntry: false })?.size ?? 0) > 0,
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(ran()).toBe(effect);
    expect(s.events.of("tool_call_started")).toHaveLength(1);
    expect(s.events.of("tool_result").map((r) => [r.callId, r.outcome])).toEqual([[ask.callId, "failed"]]);
    const output = s.events.of("tool_result")[0]!.output;
    expect(output).toContain("the server running it stopped before the tool finished");
    expect(output.startsWith(EDITED_PREFIX)).toBe(edited !== undefined);
    expect(asked).toEqual([ask.approvalId]);
  });
});
