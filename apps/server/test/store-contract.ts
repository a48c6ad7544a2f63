import type { ApprovalRequired, GatehouseEvent, SessionInfo } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import type { AuditEntry, Store } from "../src/store/store.js";

/** What every store must do (docs/state.md), run against one backend; `open` gives a fresh, empty store. */
export function describeStoreContract(name: string, open: () => Promise<Store>): void {
  const session = (id: string, parentId: string | null = null, workerId = "w1"): SessionInfo => ({
    id,
    workerId,
    agent: "general",
    model: "scripted",
    mode: "default",
    parentId,
    createdAt: "2026-01-01T00:00:00.000Z",
    status: "idle",
  });
  const text = (sessionId: string, t: string): GatehouseEvent => ({ type: "user_message", sessionId, at: "2026-01-01T00:00:00Z", text: t });
  const ask = (approvalId: string, sessionId = "s1") =>
    ({
      type: "tool_approval_required",
      sessionId,
      at: "2026-01-01T00:00:00Z",
      approvalId,
      toolName: "shell_exec",
      arguments: "{}",
      callId: `c-${approvalId}`,
      tier: "exec",
      decision: null,
      reason: "r",
      suggestedPattern: "ls",
      suggestedPatterns: ["ls"],
      batch: { index: 0, total: 1, remaining: [] },
      presentation: null,
    }) as unknown as ApprovalRequired;
  const audit = (at: string, fields: Partial<AuditEntry> = {}): AuditEntry => ({
    at,
    sessionId: "s1",
    workerId: "w1",
    toolName: "shell_exec",
    arguments: "{}",
    action: "allow",
    reason: "r",
    rule: null,
    ...fields,
  });

  describe(`the ${name} store`, () => {
    it("keeps sessions with their links, messages in order, and lists by worker and parent", async () => {
      const store = await open();
      await store.putSession(session("s1"));
      await store.putSession(session("c1", "s1"));
      await store.putSession(session("s2", null, "w2"));
      await store.putSession({ ...session("s1"), mode: "strict" });
      expect((await store.getSession("s1"))?.mode).toBe("strict");
      expect(await store.getSession("nope")).toBeUndefined();
      expect((await store.listSessions({ parentId: "s1" })).map((s) => s.id)).toEqual(["c1"]);
      expect((await store.listSessions({ workerId: "w1", parentId: null })).map((s) => s.id)).toEqual(["s1"]);
      expect(await store.listSessions()).toHaveLength(3);
      await store.appendMessage("s1", { role: "user", text: "a" });
      await store.appendMessage("s1", { role: "assistant", text: "b", toolCalls: [] });
      expect((await store.messages("s1")).map((m) => m.role)).toEqual(["user", "assistant"]);
      await store.close();
    });

    it("gives events rising ids and returns them after an id, by session, up to a limit", async () => {
      const store = await open();
      expect(await store.lastEventId()).toBe(0);
      const ids = await Promise.all(["a", "b", "c", "d"].map((t, i) => store.appendEvent(i % 2 ? "s2" : "s1", text(i % 2 ? "s2" : "s1", t))));
      expect(ids.map((e) => e.id)).toEqual([1, 2, 3, 4]);
      expect(await store.lastEventId()).toBe(4);
      expect((await store.eventsAfter(1)).map((e) => e.id)).toEqual([2, 3, 4]);
      expect((await store.eventsAfter(0, "s1")).map((e) => e.id)).toEqual([1, 3]);
      expect((await store.eventsAfter(0, ["s2", "s1"], 3)).map((e) => e.id)).toEqual([1, 2, 3]);
      expect((await store.eventsAfter(0, [], 3)).map((e) => e.id)).toEqual([]);
      expect((await store.eventsAfter(2, undefined, 1))[0]).toMatchObject({ id: 3, sessionId: "s1", event: { text: "c" } });
      await store.close();
    });

    it("keeps NUL characters in events, pending approvals and audit entries (a binary file's bytes in a result)", async () => {
      const store = await open();
      const binary = "abc\u0000def\n";
      const result = { ...text("s1", "r"), text: binary };
      const held = { ...ask("a-nul"), arguments: JSON.stringify({ command: `printf '${binary}'` }) };
      const [first, second] = [await store.appendEvent("s1", result), await store.appendEvent("s1", held)];
      expect((await store.eventsAfter(0)).map((e) => e.event)).toEqual([result, held]);
      expect([first.id, second.id]).toEqual([1, 2]);
      await store.putPending({ event: held, eventId: second.id });
      const answer = { outcome: "denied" as const, scope: null, feedback: binary, hard: false, by: "ada" };
      expect(await store.takePending("a-nul", answer)).toMatchObject({ event: { arguments: held.arguments } });
      expect(await store.answered("s1")).toEqual([{ event: held, eventId: 2, answer }]);
      await store.appendAudit(audit("2026-01-01T00:00:00.000Z", { arguments: JSON.stringify({ path: binary }), reason: binary }));
      expect((await store.queryAudit({}))[0]).toMatchObject({ reason: binary });
      await store.close();
    });

    it("hands a pending approval to exactly one of many takers", async () => {
      const store = await open();
      await store.putPending({ event: ask("a1"), eventId: 7 });
      await store.putPending({ event: ask("a2", "s2"), eventId: 8 });
      expect((await store.listPending("s1")).map((p) => p.eventId)).toEqual([7]);
      const takes = await Promise.all(Array.from({ length: 20 }, () => store.takePending("a1")));
      expect(takes.filter((t) => t !== undefined)).toEqual([{ event: ask("a1"), eventId: 7 }]);
      expect((await store.listPending()).map((p) => p.event.approvalId)).toEqual(["a2"]);
      await store.close();
    });

    it("lists pending approvals a page at a time, by event id", async () => {
      const store = await open();
      for (const [i, session] of ["s1", "s2", "s1", "s2"].entries()) await store.putPending({ event: ask(`a${i}`, session), eventId: 10 + i });
      expect((await store.listPending(undefined, { afterEventId: 10, limit: 2 })).map((p) => p.eventId)).toEqual([11, 12]);
      expect((await store.listPending(undefined, { afterEventId: 12, limit: 5 })).map((p) => p.eventId)).toEqual([13]);
      expect((await store.listPending("s1", { afterEventId: 0, limit: 1 })).map((p) => p.eventId)).toEqual([10]);
      expect((await store.listPending("s2", { afterEventId: 11, limit: 5 })).map((p) => p.eventId)).toEqual([13]);
      await store.close();
    });

    it("keeps an answer with the approval it took, per session, until the session's answers are forgotten", async () => {
      const store = await open();
      await store.putPending({ event: ask("a1"), eventId: 7 });
      await store.putPending({ event: ask("a2", "s2"), eventId: 8 });
      const denied = { outcome: "denied" as const, scope: null, feedback: "no", hard: true, by: "ada" };
      const takes = await Promise.all([store.takePending("a1", denied), store.takePending("a1", { ...denied, by: "bob" })]);
      expect(takes.filter((t) => t !== undefined)).toHaveLength(1);
      await store.takePending("a2");
      expect(await store.answered("s1")).toEqual([{ event: ask("a1"), eventId: 7, answer: denied }]);
      expect(await store.answered("s2")).toEqual([]);
      expect(await store.listPending()).toEqual([]);
      await store.forgetAnswers("s1");
      expect(await store.answered("s1")).toEqual([]);
      await store.close();
    });

    it("keeps runtime rules per session until they are forgotten", async () => {
      const store = await open();
      await store.addRuntimeRules("s1", "shell_exec", ["npm test", "make *"]);
      await store.addRuntimeRules("s2", "read_file", ["src/**"]);
      expect(await store.runtimeRules("s1")).toEqual([
        { sessionId: "s1", tool: "shell_exec", pattern: "npm test" },
        { sessionId: "s1", tool: "shell_exec", pattern: "make *" },
      ]);
      await store.forgetRuntimeRules("s1");
      expect(await store.runtimeRules()).toEqual([{ sessionId: "s2", tool: "read_file", pattern: "src/**" }]);
      await store.close();
    });

    it("queries the audit log by every filter and prunes what is older than the retention", async () => {
      const store = await open();
      await store.appendAudit(audit("2026-01-01T00:00:00.000Z"));
      await store.appendAudit(audit("2026-01-02T00:00:00.000Z", { action: "approved", by: "ada", sessionId: "s2" }));
      await store.appendAudit(audit("2026-01-03T00:00:00.000Z", { toolName: "read_file", workerId: "w2" }));
      const at = async (q: Parameters<Store["queryAudit"]>[0]) => (await store.queryAudit(q)).map((e) => e.at.slice(8, 10));
      expect(await at({})).toEqual(["01", "02", "03"]);
      expect(await at({ by: "ada" })).toEqual(["02"]);
      expect(await at({ sessionId: "s1", action: "allow" })).toEqual(["01", "03"]);
      expect(await at({ workerId: "w2", toolName: "read_file" })).toEqual(["03"]);
      expect(await at({ since: "2026-01-02T00:00:00.000Z", until: "2026-01-03T00:00:00.000Z" })).toEqual(["02"]);
      expect(await at({ limit: 2 })).toEqual(["02", "03"]);
      expect((await store.queryAudit({ by: "ada" }))[0]).toEqual(audit("2026-01-02T00:00:00.000Z", { action: "approved", by: "ada", sessionId: "s2" }));
      expect(await store.pruneAudit("2026-01-02T12:00:00.000Z")).toBe(2);
      expect(await at({})).toEqual(["03"]);
      await store.close();
    });
  });
}
