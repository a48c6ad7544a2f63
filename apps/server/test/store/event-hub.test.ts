import type { GatehouseEvent, TrackedEvent } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { EventHub } from "../../src/store/event-hub.js";
import { MemoryStore } from "../../src/store/memory-store.js";

const text = (sessionId: string, t: string): GatehouseEvent => ({ type: "user_message", sessionId, at: "2026-01-01T00:00:00Z", text: t });

/** Takes `n` events from a subscription, then stops it. */
async function take(iterable: AsyncIterable<TrackedEvent>, n: number, controller: AbortController): Promise<TrackedEvent[]> {
  const got: TrackedEvent[] = [];
  for await (const e of iterable) {
    got.push(e);
    if (got.length === n) break;
  }
  controller.abort();
  return got;
}

describe("the event hub, in process", () => {
  it("replays what a client missed after lastEventId, then streams live events, each once", async () => {
    const hub = new EventHub(new MemoryStore());
    for (const t of ["a", "b", "c"]) await hub.publish(text("s1", t));
    await hub.publish(text("s2", "other"));
    const controller = new AbortController();
    const got = take(hub.subscribe({ sessionId: "s1", lastEventId: "1" }, controller.signal), 3, controller);
    await new Promise((r) => setTimeout(r, 5));
    await hub.publish(text("s1", "d"));
    const events = await got;
    expect(events.map((e) => [e.id, (e.event as { text: string }).text])).toEqual([
      ["2", "b"],
      ["3", "c"],
      ["5", "d"],
    ]);
  });

  it("sends a session's pending approvals again to every new subscriber", async () => {
    const store = new MemoryStore();
    const hub = new EventHub(store);
    const ask = {
      type: "tool_approval_required",
      sessionId: "s1",
      at: "x",
      approvalId: "a1",
      toolName: "shell_exec",
      arguments: "{}",
      callId: "c1",
      tier: "exec",
      reason: "r",
      suggestedPattern: "ls",
      suggestedPatterns: ["ls"],
      batch: { index: 0, total: 1, remaining: [] },
      presentation: null,
    } as unknown as Extract<GatehouseEvent, { type: "tool_approval_required" }>;
    const stored = await hub.publish(ask, (s) => store.putPending({ event: ask, eventId: s.id }));
    await hub.publish(text("s1", "later"));
    const controller = new AbortController();
    const events = await take(hub.subscribe({ sessionId: "s1", lastEventId: String(stored.id) }, controller.signal), 2, controller);
    expect(events.map((e) => e.event.type)).toEqual(["tool_approval_required", "user_message"]);
  });

  it("ends a subscription when its signal aborts", async () => {
    const hub = new EventHub(new MemoryStore());
    const controller = new AbortController();
    const iterator = hub.subscribe({}, controller.signal)[Symbol.asyncIterator]();
    const next = iterator.next();
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
  });
});
