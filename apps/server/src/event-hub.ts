import type { ApprovalRequired, GatehouseEvent, TrackedEvent } from "@gatehouse/protocol";
import { GatehouseError } from "./errors.js";
import { familyOf, isWithin } from "./session-family.js";
import type { Store, StoredEvent } from "./store.js";

type Listener = (stored: StoredEvent) => void;

/** Appends events to the store and streams them to subscribers, with replay on reconnect. */
export class EventHub {
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly store: Store,
    /** Events held for one subscriber that does not take them; past this it is ended, not grown. */
    private readonly maxBacklog = 10_000,
  ) {}

  publish(event: GatehouseEvent): StoredEvent {
    const stored = this.store.appendEvent(event.sessionId, event);
    for (const l of this.listeners) l(stored);
    return stored;
  }

  /** Events after an id, of one session and its subagents or of all, oldest first. */
  private missed(afterId: number, sessionId: string | undefined): StoredEvent[] {
    if (sessionId === undefined) return this.store.eventsAfter(afterId);
    const family = familyOf(this.store, sessionId);
    if (family.length === 1) return this.store.eventsAfter(afterId, sessionId);
    return family.flatMap((id) => this.store.eventsAfter(afterId, id)).sort((a, b) => a.id - b.id);
  }

  private pending(sessionId: string | undefined): { event: ApprovalRequired; eventId: number }[] {
    if (sessionId === undefined) return this.store.pending();
    return familyOf(this.store, sessionId)
      .flatMap((id) => this.store.pending(id))
      .sort((a, b) => a.eventId - b.eventId);
  }

  /**
   * The pending approvals of the session and its subagents (or of every session) again, then what was missed since
   * `lastEventId`, then live events. Live events are buffered while history is read, so none
   * is lost or repeated between the two.
   */
  async *subscribe(filter: { sessionId?: string | undefined; lastEventId?: string | null | undefined }, signal?: AbortSignal): AsyncGenerator<TrackedEvent> {
    const buffer: StoredEvent[] = [];
    let wake: (() => void) | null = null;
    let overflowed = false;
    const listener: Listener = (s) => {
      if (overflowed || (filter.sessionId !== undefined && !isWithin(this.store, s.sessionId, filter.sessionId))) return;
      if (buffer.length >= this.maxBacklog) {
        overflowed = true;
        buffer.length = 0;
      } else buffer.push(s);
      wake?.();
    };
    this.listeners.add(listener);
    const onAbort = () => wake?.();
    signal?.addEventListener("abort", onAbort);
    try {
      const requested = Number(filter.lastEventId ?? this.store.lastEventId());
      // An id beyond the log was issued before a restart that emptied it: all of the log is new to that client.
      const after = Number.isFinite(requested) && requested <= this.store.lastEventId() ? requested : 0;
      const missed = this.missed(after, filter.sessionId);
      const missedIds = new Set(missed.map((m) => m.id));
      for (const p of this.pending(filter.sessionId)) {
        if (!missedIds.has(p.eventId)) yield { id: String(p.eventId), event: p.event };
      }
      let last = missed.at(-1)?.id ?? after;
      for (const s of missed) yield { id: String(s.id), event: s.event };
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
