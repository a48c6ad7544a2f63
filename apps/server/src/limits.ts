import type { Handlers, Principal } from "@gatehouse/protocol";
import { TRPCError } from "@trpc/server";
import type { Limits } from "./config.js";
import type { Connections } from "./connections.js";
import { GatehouseError } from "./errors.js";
import type { Log } from "./log.js";

interface Bucket {
  tokens: number;
  at: number;
}

/** Requests per second and open subscriptions, per token. */
export class TokenLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly subscriptions = new Map<string, number>();

  constructor(
    private readonly limits: () => Limits,
    private readonly log: Log,
  ) {}

  /** Takes one request from the token's bucket (refilled at the rate, holding two seconds' worth). */
  request(p: Principal): void {
    const rate = this.limits().requestsPerSecond;
    const key = p.tokenId ?? p.name;
    const now = Date.now();
    const b = this.buckets.get(key) ?? { tokens: rate * 2, at: now };
    b.tokens = Math.min(rate * 2, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens < 1) {
      this.log.warn("limit hit: requests per second", { token: p.name, limit: rate });
      throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: `the token "${p.name}" made more than ${rate} requests per second` });
    }
    b.tokens -= 1;
  }

  /** Counts a subscription in; the returned function counts it out. */
  subscribe(p: Principal): () => void {
    const key = p.tokenId ?? p.name;
    const open = this.subscriptions.get(key) ?? 0;
    const max = this.limits().subscriptionsPerToken;
    if (open >= max) {
      this.log.warn("limit hit: subscriptions per token", { token: p.name, limit: max });
      throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: `the token "${p.name}" has ${max} subscriptions open, the most it may` });
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

type AnyHandler = (p: Principal, ...rest: unknown[]) => unknown;

function isIterable(v: unknown): v is AsyncIterable<unknown> {
  return typeof v === "object" && v !== null && Symbol.asyncIterator in v;
}

/**
 * The handlers behind the per-token limits: every call takes from the token's rate, every
 * subscription counts against its maximum, and a subscriber whose connection has more queued
 * than the backlog allows is cut off rather than left to grow the server's memory.
 */
export function withLimits(handlers: Handlers, limits: TokenLimits, connections: Connections, backlogBytes: () => number, log: Log): Handlers {
  const wrapGroup = (group: Record<string, AnyHandler>) =>
    Object.fromEntries(
      Object.entries(group).map(([name, fn]) => [
        name,
        (p: Principal, ...rest: unknown[]) => {
          limits.request(p);
          const result = fn(p, ...rest);
          return isIterable(result) ? counted(p, result) : result;
        },
      ]),
    );
  async function* counted(p: Principal, source: AsyncIterable<unknown>): AsyncGenerator<unknown> {
    const release = limits.subscribe(p);
    try {
      for await (const item of source) {
        const peer = connections.peerOf(p);
        if (peer && peer.bufferedAmount > backlogBytes()) {
          log.warn("limit hit: subscriber backlog", { token: p.name, queuedBytes: peer.bufferedAmount, limit: backlogBytes() });
          peer.terminate();
          return;
        }
        yield item;
      }
    } catch (err) {
      throw err instanceof GatehouseError ? err.toTRPC() : err;
    } finally {
      release();
    }
  }
  return Object.fromEntries(Object.entries(handlers).map(([group, fns]) => [group, wrapGroup(fns as Record<string, AnyHandler>)])) as unknown as Handlers;
}
