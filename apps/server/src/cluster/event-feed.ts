import type { Log } from "@gatehouse/log";
import type { Store, StoredEvent } from "../store/index.js";

/**
 * Every instance's events, handed on in id order, once each. An instance learns of an event when
 * it stores one or is notified of one; ids commit in the order they are drawn, so on learning of
 * event N it reads whatever it has not seen below N and hands those on first.
 */
export class EventFeed {
  private seen = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly deliver: (stored: StoredEvent) => void,
    private readonly log: Log,
    private readonly batch = 1000,
  ) {}

  /** Starts after the newest event stored now: a subscriber reads the past from the store. */
  async start(): Promise<void> {
    this.seen = await this.store.lastEventId();
  }

  /** An event this instance stored; resolves once it (and everything before it) has been handed on. */
  stored(event: StoredEvent): Promise<void> {
    return this.advance(event.id, event);
  }

  /** A notification from the database: an event with this id was stored by some instance. */
  notified(payload: string): void {
    const id = Number(payload);
    if (Number.isSafeInteger(id)) void this.advance(id);
  }

  /** The notification connection was lost and is back: read what was stored meanwhile. */
  resync(): void {
    void this.advance(Number.MAX_SAFE_INTEGER);
  }

  private advance(upTo: number, known?: StoredEvent): Promise<void> {
    const step = this.queue.then(async () => {
      if (upTo <= this.seen) return;
      if (known && upTo === this.seen + 1) return this.hand(known);
      for (;;) {
        const next = await this.store.eventsAfter(this.seen, undefined, this.batch);
        for (const e of next) this.hand(e);
        if (next.length < this.batch) break;
      }
    });
    this.queue = step.catch((err: unknown) => this.log.error("events from other instances could not be read", { err }));
    return step;
  }

  private hand(e: StoredEvent): void {
    this.seen = e.id;
    try {
      this.deliver(e);
    } catch (err) {
      this.log.error("an event could not be handed to subscribers", { err, id: e.id });
    }
  }
}
