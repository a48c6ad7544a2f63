import type { Principal } from "@gatehouse/protocol";
import { callerOf, procedureMiddleware } from "@gatehouse/protocol/router";
import type { Limits } from "../config/index.js";
import type { Connections } from "./connections.js";
import { GatehouseError } from "../errors.js";
import { eventText } from "../store/index.js";
import { trackedData } from "../store/index.js";
import type { Log } from "../log.js";
import { isReplayItem } from "../store/index.js";

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Requests per second and open subscriptions, per token: one bucket per token, which its
 * procedure calls and its worker link's messages both draw on.
 */
export class TokenLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly subscriptions = new Map<string, number>();

  constructor(
    private readonly limits: () => Limits,
    private readonly log: Log,
  ) {}

  /** The token's bucket, refilled at the rate for the time since it was last used; it holds two seconds' worth. */
  private bucket(p: Principal): Bucket {
    const rate = this.limits().requestsPerSecond;
    const key = p.tokenId ?? p.name;
    const now = performance.now();
    const b = this.buckets.get(key) ?? { tokens: rate * 2, at: now };
    b.tokens = Math.min(rate * 2, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    this.buckets.set(key, b);
    return b;
  }

  rate(): number {
    return this.limits().requestsPerSecond;
  }

  /** Milliseconds until the token may make its next request; 0 when it may now. */
  waitMs(p: Principal): number {
    const b = this.bucket(p);
    return b.tokens >= 1 ? 0 : Math.ceil(((1 - b.tokens) / this.limits().requestsPerSecond) * 1000);
  }

  /** Counts one request of the token. */
  spend(p: Principal): void {
    const b = this.bucket(p);
    b.tokens = Math.max(0, b.tokens - 1);
  }

  /** Takes one request from the token's bucket, or refuses it with TOO_MANY_REQUESTS. */
  request(p: Principal): void {
    if (this.waitMs(p) > 0) {
      const rate = this.limits().requestsPerSecond;
      this.log.warn("limit hit: requests per second", { token: p.name, limit: rate });
      throw new GatehouseError("RATE_LIMITED", `the token "${p.name}" made more than ${rate} requests per second`).toTRPC();
    }
    this.spend(p);
  }

  /** Counts a subscription in; the returned function counts it out. */
  subscribe(p: Principal): () => void {
    const key = p.tokenId ?? p.name;
    const open = this.subscriptions.get(key) ?? 0;
    const max = this.limits().subscriptionsPerToken;
    if (open >= max) {
      this.log.warn("limit hit: subscriptions per token", { token: p.name, limit: max });
      throw new GatehouseError("TOO_MANY_SUBSCRIPTIONS", `the token "${p.name}" has ${max} subscriptions open, the most it may`).toTRPC();
    }
    this.subscriptions.set(key, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.subscriptions.get(key) ?? 1) - 1;
      if (left > 0) this.subscriptions.set(key, left);
      else this.subscriptions.delete(key);
    };
  }
}

function isIterable(v: unknown): v is AsyncIterable<unknown> {
  return typeof v === "object" && v !== null && Symbol.asyncIterator in v;
}

/** About how many bytes an item of a subscription takes on the wire (its JSON); an event's text is made once for every subscriber. */
function wireSize(tracked: unknown): number {
  const item = trackedData(tracked);
  const key = typeof item === "object" && item !== null && "event" in item && typeof item.event === "object" && item.event !== null ? item.event : item;
  if (typeof key !== "object" || key === null) return JSON.stringify(item ?? null).length;
  return eventText(key).length;
}

/**
 * One subscription's items, taken from its source as soon as they come and queued here until the
 * connection sends them, so that what waits for a subscriber is counted wherever it waits: in
 * this queue (server-sent events go out only as fast as their reader reads) or in the
 * connection's send buffer (a WebSocket takes every item at once). When the two together pass
 * the backlog, `cutOff` is called, the queue is dropped and the subscription ends. Replayed items
 * are taken only as fast as they go out, so a replay is never what passes the backlog.
 */
async function* backlogBounded<T>(
  source: AsyncIterable<T>,
  backlogBytes: () => number,
  sendBuffer: () => number,
  cutOff: (queuedBytes: number) => void,
): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const queue: { item: T; size: number }[] = [];
  let queued = 0;
  let state: "running" | "ended" | "cut" | "stopped" = "running";
  const failure: { error?: unknown; happened: boolean } = { happened: false };
  let wake: (() => void) | null = null;
  const overflowed = (): boolean => {
    const total = queued + sendBuffer();
    if (total <= backlogBytes()) return false;
    state = "cut";
    queue.length = 0;
    queued = 0;
    cutOff(total);
    return true;
  };
  /** A replay is read on once what waits for the subscriber is down to a quarter of its backlog: it paces the replay, never cuts it off. */
  const roomForReplay = async () => {
    while (state === "running" && queued + sendBuffer() > backlogBytes() / 4) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const pump = async () => {
    try {
      while (state === "running") {
        const next = await iterator.next();
        if (next.done || state !== "running") break;
        const size = wireSize(next.value);
        queue.push({ item: next.value, size });
        queued += size;
        const replayed = isReplayItem(next.value);
        if (!replayed && overflowed()) break;
        wake?.();
        if (replayed) await roomForReplay();
      }
    } catch (error) {
      failure.happened = true;
      failure.error = error;
    } finally {
      if (state === "running") state = "ended";
      wake?.();
    }
  };
  void pump();
  try {
    for (;;) {
      while (queue.length > 0) {
        const { item, size } = queue.shift()!;
        queued -= size;
        yield item;
      }
      if (failure.happened) throw failure.error;
      if (state !== "running") return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
  } finally {
    if (state === "running") state = "stopped";
    // Not awaited: the source ends when the subscription's signal aborts; its slot is freed now.
    try {
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
    } catch {
      // a source without a clean return has nothing to free
    }
  }
}

/**
 * One subscription under the token's limits: it counts against the token's maximum while it is
 * open, and a subscriber whose backlog passes the limit is cut off rather than left to grow the
 * server's memory.
 */
export async function* limitedSubscription<T>(
  p: Principal,
  source: AsyncIterable<T>,
  limits: TokenLimits,
  connections: Connections,
  backlogBytes: () => number,
  log: Log,
): AsyncGenerator<T> {
  const release = limits.subscribe(p);
  const cutOff = (queuedBytes: number) => {
    log.warn("limit hit: subscriber backlog", { token: p.name, queuedBytes, limit: backlogBytes() });
    connections.peerOf(p)?.terminate();
  };
  try {
    yield* backlogBounded<T>(source, backlogBytes, () => connections.peerOf(p)?.bufferedAmount ?? 0, cutOff);
  } finally {
    release();
  }
}

/**
 * The per-token limits on every procedure: every call takes from the token's rate, every
 * subscription is limited as `limitedSubscription` says. A worker's result that a request was
 * waiting for is paced by the server's own requests: it costs nothing (as on the worker link).
 */
export function perTokenLimits(limits: TokenLimits, connections: Connections, backlogBytes: () => number, log: Log) {
  return procedureMiddleware(async ({ ctx, path, next }) => {
    const p = callerOf(ctx);
    if (path === "worker.result") {
      if (limits.waitMs(p) > 0) limits.request(p);
      const result = await next();
      if (result.ok && (result.data as { accepted?: boolean }).accepted !== true) limits.spend(p);
      return result;
    }
    limits.request(p);
    const result = await next();
    return result.ok && isIterable(result.data) ? { ...result, data: limitedSubscription(p, result.data, limits, connections, backlogBytes, log) } : result;
  });
}
