import type { GatehouseEvent, TrackedEvent } from "@gatehouse/protocol";
import type { Store, StoredEvent } from "./store.js";

type Listener = (stored: StoredEvent) => void;

/** Appends events to the store and streams them to subscribers, with replay on reconnect. */
export class EventHub {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly store: Store) {}

  publish(event: GatehouseEvent): StoredEvent {
    const stored = this.store.appendEvent(event.sessionId, event);
    for (const l of this.listeners) l(stored);
    return stored;
  }

  /**
   * The session's (or every session's) pending approvals again, then what was missed since
   * `lastEventId`, then live events. Live events are buffered while history is read, so none
   * is lost or repeated between the two.
   */
  async *subscribe(filter: { sessionId?: string | undefined; lastEventId?: string | null | undefined }, signal?: AbortSignal): AsyncGenerator<TrackedEvent> {
    const buffer: StoredEvent[] = [];
    let wake: (() => void) | null = null;
    const listener: Listener = (s) => {
      if (filter.sessionId !== undefined && s.sessionId !== filter.sessionId) return;
      buffer.push(s);
      wake?.();
    };
    this.listeners.add(listener);
    const onAbort = () => wake?.();
    signal?.addEventListener("abort", onAbort);
    try {
      const after = Number(filter.lastEventId ?? this.store.lastEventId());
      const missed = this.store.eventsAfter(Number.isFinite(after) ? after : 0, filter.sessionId);
      const missedIds = new Set(missed.map((m) => m.id));
      for (const p of this.store.pending(filter.sessionId)) {
        if (!missedIds.has(p.eventId)) yield { id: String(p.eventId), event: p.event };
      }
      let last = missed.at(-1)?.id ?? (Number.isFinite(after) ? after : 0);
      for (const s of missed) yield { id: String(s.id), event: s.event };
      while (!signal?.aborted) {
        while (buffer.length > 0) {
          const s = buffer.shift()!;
          if (s.id <= last) continue;
          last = s.id;
          yield { id: String(s.id), event: s.event };
        }
        if (signal?.aborted) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      this.listeners.delete(listener);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}
