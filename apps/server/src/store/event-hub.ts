import type { GatehouseEvent, TrackedEvent } from "@gatehouse/protocol";
import { GatehouseError } from "../errors.js";
import { silentLog, type Log } from "../log.js";
import { replayItem } from "./replay-items.js";
import { familyOf } from "./session-family.js";
import type { PendingRecord, Store, StoredEvent } from "./store.js";

type Listener = (stored: StoredEvent) => void;

/** Events or pending approvals read from the store at once in a replay. */
const REPLAY_PAGE = 500;

/** Appends events to the store and streams them to subscribers, with replay on reconnect. */
export class EventHub {
  private readonly listeners = new Set<Listener>();
  /** The last delivery: events reach listeners in the order they were published, which is id order. */
  private delivered: Promise<unknown> = Promise.resolve();
  /** Where a stored event goes on its way to subscribers: to them directly, or through a feed shared by several instances. */
  private route: (stored: StoredEvent) => Promise<void> | void = (stored) => this.deliver(stored);

  constructor(
    private readonly store: Store,
    /** Events held for one subscriber that does not take them; past this it is ended, not grown. */
    private readonly maxBacklog = 10_000,
    private readonly log: Log = silentLog,
  ) {}

  /** Publishes without waiting, from code that cannot (a synchronous evaluation); a failure to store is logged. */
  notify(event: GatehouseEvent): void {
    this.publish(event).catch((err: unknown) => this.log.error("an event could not be stored", { err, type: event.type, sessionId: event.sessionId }));
  }

  /**
   * Stores an event, then hands it to subscribers. `beforeDelivery` runs once the event has its id
   * and before anyone sees it (a pending approval is recorded there, so it is answerable as soon
   * as it is shown).
   */
  publish(event: GatehouseEvent, beforeDelivery?: (stored: StoredEvent) => Promise<void>): Promise<StoredEvent> {
    const ready = this.store.appendEvent(event.sessionId, event).then(async (stored) => {
      if (beforeDelivery) await beforeDelivery(stored);
      return stored;
    });
    const delivered = this.delivered.then(async () => {
      const stored = await ready;
      await this.route(stored);
      return stored;
    });
    this.delivered = delivered.catch(() => undefined);
    return delivered;
  }

  /**
   * Sends this hub's stored events through `route`, which hands them (with those other instances
   * stored) back to `deliver` in id order.
   */
  relayThrough(route: (stored: StoredEvent) => Promise<void>): void {
    this.route = route;
  }

  /** Hands a stored event to this process's subscribers. */
  deliver(stored: StoredEvent): void {
    for (const l of this.listeners) l(stored);
  }

  /**
   * Events after an id, of some sessions or of all, oldest first, read a page at a time until the
   * log is read to its end with no live event dropped meanwhile (`droppedLive` says, and starts
   * buffering again: the next page has what was dropped).
   */
  private async *missed(afterId: number, family: readonly string[] | undefined, droppedLive: () => boolean): AsyncGenerator<StoredEvent> {
    droppedLive();
    for (let from = afterId; ;) {
      const page = await this.store.eventsAfter(from, family, REPLAY_PAGE);
      yield* page;
      from = page.at(-1)?.id ?? from;
      if (!droppedLive() && page.length < REPLAY_PAGE) return;
    }
  }

  /** The pending approvals raised at or before an id (those after it come with the missed events), oldest first. */
  private async *pendingUpTo(upTo: number, family: readonly string[] | undefined): AsyncGenerator<PendingRecord> {
    if (family !== undefined) {
      const all = await Promise.all(family.map((id) => this.store.listPending(id)));
      yield* all
        .flat()
        .filter((p) => p.eventId <= upTo)
        .sort((a, b) => a.eventId - b.eventId);
      return;
    }
    for (let from = 0; ;) {
      const page = await this.store.listPending(undefined, { afterEventId: from, limit: REPLAY_PAGE });
      for (const p of page) {
        if (p.eventId > upTo) return;
        yield p;
      }
      if (page.length < REPLAY_PAGE) return;
      from = page.at(-1)!.eventId;
    }
  }

  /**
   * The pending approvals of the session and its subagents (or of every session) again, then what was missed since
   * `lastEventId`, then live events. Live events are buffered while history is read, so none
   * is lost or repeated between the two. History is read from the store a page at a time, as
   * fast as the subscriber takes it; live events it dropped while reading are in the next page.
   */
  async *subscribe(filter: { sessionId?: string | undefined; lastEventId?: string | null | undefined }, signal?: AbortSignal): AsyncGenerator<TrackedEvent> {
    const buffer: StoredEvent[] = [];
    let wake: (() => void) | null = null;
    let overflowed = false;
    /** The session and its subagents, grown as subagents are created; undefined for every session. */
    const family = filter.sessionId === undefined ? undefined : new Set([filter.sessionId]);
    const listener: Listener = (s) => {
      if (overflowed || !within(family, s)) return;
      if (buffer.length >= this.maxBacklog) {
        overflowed = true;
        buffer.length = 0;
      } else buffer.push(s);
      wake?.();
    };
    const droppedLive = () => {
      if (!overflowed) return false;
      [overflowed, buffer.length] = [false, 0];
      return true;
    };
    this.listeners.add(listener);
    const onAbort = () => wake?.();
    signal?.addEventListener("abort", onAbort);
    try {
      if (filter.sessionId !== undefined) for (const id of await familyOf(this.store, filter.sessionId)) family!.add(id);
      const members = family && [...family];
      const lastId = await this.store.lastEventId();
      const requested = Number(filter.lastEventId ?? lastId);
      // An id beyond the log was issued before a restart that emptied it: all of the log is new to that client.
      const after = Number.isFinite(requested) && requested <= lastId ? requested : 0;
      for await (const p of this.pendingUpTo(after, members)) yield replayItem({ id: String(p.eventId), event: p.event });
      let last = after;
      for await (const s of this.missed(after, members, droppedLive)) {
        last = s.id;
        yield replayItem({ id: String(s.id), event: s.event });
      }
      while (!signal?.aborted) {
        while (buffer.length > 0) {
          const s = buffer.shift()!;
          if (s.id <= last) continue;
          last = s.id;
          yield { id: String(s.id), event: s.event };
        }
        if (signal?.aborted) break;
        if (overflowed)
          throw new GatehouseError(
            "BUSY",
            `this subscriber fell more than ${this.maxBacklog} events behind and was cut off; subscribe again with lastEventId ${last} to catch up`,
          );
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      this.listeners.delete(listener);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}

/** Whether an event belongs to the family (every event when there is no family); a new subagent joins its parent's. */
function within(family: Set<string> | undefined, s: StoredEvent): boolean {
  if (!family) return true;
  const e = s.event;
  if (e.type === "session_created" && e.session.parentId && family.has(e.session.parentId)) family.add(e.session.id);
  return family.has(s.sessionId);
}
