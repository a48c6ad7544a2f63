import { describe, expect, it } from "vitest";
import type { Guard } from "../src/events.js";
import { ReceivedGuards, SentGuards } from "../src/link-guards.js";
import { LINK_GUARDS } from "../src/worker-link.js";

const guard = (n: number): Guard => ({
  agent: null,
  static: [{ tool: "read_file", pattern: `*.${n}`, action: "deny", origin: "person" }],
  runtime: [],
  protectedPaths: [],
});
const run = (requestId: string, g: Guard) => ({ type: "run" as const, requestId, sessionId: "s", toolName: "read_file", args: {}, timeoutMs: 1000, guard: g });

/** A small seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31), x / 2 ** 31);
}

describe("guards on the worker link", () => {
  it("are sent whole once, then by id, and the worker hands each call the guard it was sent", () => {
    const sent = new SentGuards();
    const received = new ReceivedGuards();
    const g = guard(1);
    const first = sent.refer(run("r1", g));
    const second = sent.refer(run("r2", g));
    expect(first).toMatchObject({ guardId: 0, guard: g });
    expect(second).toEqual({ type: "run", requestId: "r2", sessionId: "s", toolName: "read_file", args: {}, timeoutMs: 1000, guardId: 0 });
    expect(JSON.stringify(second).length).toBeLessThan(JSON.stringify(first).length);
    expect(received.resolve(JSON.parse(JSON.stringify(first)))?.guard).toEqual(g);
    expect(received.resolve(JSON.parse(JSON.stringify(second)))).toMatchObject({ requestId: "r2", guard: g });
  });

  it("never refer the worker to a guard it has forgotten, whatever the order of use", () => {
    const next = random(7);
    const guards = Array.from({ length: 5 * LINK_GUARDS }, (_, i) => guard(i));
    const sent = new SentGuards();
    const received = new ReceivedGuards();
    for (let i = 0; i < 50_000; i++) {
      // Mostly a few guards in turn, now and then one of many: the uses that make caches forget.
      const g = next() < 0.8 ? guards[Math.floor(next() * 4)]! : guards[Math.floor(next() * guards.length)]!;
      const resolved = received.resolve(JSON.parse(JSON.stringify(sent.refer(run(`r${i}`, g)))));
      expect(resolved?.guard).toEqual(g);
    }
  });

  it("refuse a call whose guard the worker does not have", () => {
    const { guard: _dropped, ...byIdOnly } = new SentGuards().refer(run("r1", guard(1)));
    expect(new ReceivedGuards().resolve(byIdOnly)).toBeUndefined();
  });
});
