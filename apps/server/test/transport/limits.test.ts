import type { Principal } from "@gatehouse/protocol";
import { silentLog } from "@gatehouse/log";
import { describe, expect, it } from "vitest";
import { ServerConfig } from "../../src/config/config.js";
import { Connections, type Peer } from "../../src/transport/connections.js";
import { EventHub } from "../../src/store/event-hub.js";
import { limitedSubscription, TokenLimits } from "../../src/transport/limits.js";
import { MemoryStore } from "../../src/store/memory-store.js";

const limits = (over: Partial<ServerConfig["limits"]>) => ({ ...ServerConfig.parse({}).limits, ...over });
const ada = (): Principal => ({ kind: "client", name: "ada", tokenId: "sha256:ada", role: "admin" });

function peer(bufferedAmount = 0): Peer & { closed: number | null; terminated: boolean } {
  return {
    bufferedAmount,
    closed: null,
    terminated: false,
    close(code) {
      this.closed = code;
    },
    terminate() {
      this.terminated = true;
    },
  };
}

describe("per-token limits", () => {
  it("allows bursts of twice the rate per second, then refuses with TOO_MANY_REQUESTS", () => {
    const t = new TokenLimits(() => limits({ requestsPerSecond: 5 }), silentLog);
    const p = ada();
    for (let i = 0; i < 10; i++) t.request(p);
    expect(() => t.request(p)).toThrow(
      expect.objectContaining({ code: "TOO_MANY_REQUESTS", message: expect.stringMatching(/more than 5 requests per second/) }),
    );
    // Another token has its own bucket.
    expect(() => t.request({ ...p, tokenId: "sha256:bob", name: "bob" })).not.toThrow();
  });

  it("counts subscriptions per token and frees them as they end", () => {
    const t = new TokenLimits(() => limits({ subscriptionsPerToken: 2 }), silentLog);
    const a = t.subscribe(ada());
    t.subscribe(ada());
    expect(() => t.subscribe(ada())).toThrow(/has 2 subscriptions open/);
    a();
    a();
    expect(() => t.subscribe(ada())).not.toThrow();
  });

  it("closes connections past the most a token may hold, and those whose token no longer stands", () => {
    const c = new Connections(() => ({ max: 2, setting: "connectionsPerToken" }), silentLog);
    const [p1, p2, p3] = [ada(), ada(), ada()];
    const third = peer();
    expect(c.admit(p1, peer())).toBeNull();
    expect(c.admit(p2, peer())).toBeNull();
    expect(c.admit(p3, third)).toBe('too many connections for the token "ada": it has 2 open, the most it may (limits.connectionsPerToken)');
    c.drop(p1);
    expect(c.admit(p3, peer())).toBeNull();
    const bob: Principal = { kind: "client", name: "bob", tokenId: "sha256:bob", role: "viewer" };
    const bobs = peer();
    c.admit(bob, bobs);
    expect(c.closeUnless((p) => p.name !== "bob")).toBe(1);
    expect(bobs.closed).toBe(4001);
  });

  const event = (i: number) => ({ id: String(i), event: { type: "user_message", sessionId: "s", at: "", text: "x".repeat(100) } }) as const;
  const subscribe = (source: () => AsyncGenerator<ReturnType<typeof event>>, backlog: number) => {
    const p = ada();
    const conn = peer(0);
    const connections = new Connections(() => ({ max: 10, setting: "connectionsPerToken" }), silentLog);
    connections.admit(p, conn);
    return { conn, events: limitedSubscription(p, source(), new TokenLimits(() => limits({}), silentLog), connections, () => backlog, silentLog) };
  };

  it("cuts off a subscriber whose connection has more queued than the backlog allows", async () => {
    const { conn, events } = subscribe(async function* () {
      for (let i = 0; i < 100; i++) {
        await new Promise((r) => setTimeout(r, 1));
        yield event(i);
      }
    }, 4096);
    const got: string[] = [];
    for await (const e of events) {
      got.push(e.id);
      if (got.length === 3) (conn as { bufferedAmount: number }).bufferedAmount = 10_000;
    }
    expect(got).toEqual(["0", "1", "2"]);
    expect(conn.terminated).toBe(true);
  });

  it("counts what waits in the server for a subscriber that does not take its events, and cuts it off past the backlog", async () => {
    let made = 0;
    const { conn, events } = subscribe(async function* () {
      for (; made < 1000; made++) yield event(made);
    }, 4096);
    const iterator = events[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ id: "0" });
    await new Promise((r) => setTimeout(r, 50));
    expect(conn.terminated).toBe(true);
    // About 4 KB of events, not the thousand: the rest were never taken from the source.
    expect(made).toBeLessThan(60);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it("hands a subscriber that keeps up every event", async () => {
    const { conn, events } = subscribe(async function* () {
      for (let i = 0; i < 1000; i++) yield event(i);
    }, 1024 * 1024);
    let count = 0;
    for await (const _ of events) count++;
    expect(count).toBe(1000);
    expect(conn.terminated).toBe(false);
  });
});

describe("the event hub", () => {
  it("ends a subscriber that takes no events once its backlog is full, saying where to resume", async () => {
    const store = new MemoryStore();
    const hub = new EventHub(store, 5);
    const sub = hub.subscribe({});
    const first = sub.next();
    // The replay of the empty log is over: what comes now is live.
    await new Promise((r) => setTimeout(r, 10));
    await hub.publish({ type: "mode_changed", sessionId: "s", at: "", mode: "default" });
    expect((await first).value).toMatchObject({ id: "1" });
    for (let i = 0; i < 10; i++) await hub.publish({ type: "mode_changed", sessionId: "s", at: "", mode: "default" });
    await expect(sub.next()).rejects.toThrow(/fell more than 5 events behind.*lastEventId 1/);
  });

  it("reads on from the store for a subscriber that falls behind during its replay: nothing lost, not cut off", async () => {
    const store = new MemoryStore();
    const hub = new EventHub(store, 5);
    await hub.publish({ type: "mode_changed", sessionId: "s", at: "", mode: "default" });
    const sub = hub.subscribe({ lastEventId: "0" });
    expect((await sub.next()).value).toMatchObject({ id: "1" });
    for (let i = 0; i < 10; i++) await hub.publish({ type: "mode_changed", sessionId: "s", at: "", mode: "default" });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await sub.next()).value!.id);
    expect(ids).toEqual(Array.from({ length: 10 }, (_, i) => String(i + 2)));
    await hub.publish({ type: "mode_changed", sessionId: "s", at: "", mode: "default" });
    expect((await sub.next()).value).toMatchObject({ id: "12" });
    await sub.return(undefined);
  });
});
