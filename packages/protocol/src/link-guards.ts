import type { Guard, RunMessage } from "./events.js";
import { LINK_GUARDS, type LinkRun } from "./worker-link.js";

/**
 * The server's end: the guards a link has been sent, by object (the gate hands out the same guard
 * object while a session's rules are unchanged). A request carries its guard whole the first time
 * and by id after that; the least recently used is forgotten first.
 */
export class SentGuards {
  private readonly ids = new Map<Guard, number>();
  private next = 0;

  constructor(private readonly size = LINK_GUARDS) {}

  refer(run: RunMessage): LinkRun {
    const { guard, ...rest } = run;
    const known = this.ids.get(guard);
    if (known !== undefined) {
      this.ids.delete(guard);
      this.ids.set(guard, known);
      return { ...rest, guardId: known };
    }
    const guardId = this.next++;
    this.ids.set(guard, guardId);
    if (this.ids.size > this.size) this.ids.delete(this.ids.keys().next().value!);
    return { ...rest, guardId, guard };
  }
}

/**
 * The worker's end: the guards received, by id, forgotten in the same order of use but keeping
 * twice as many, so that every id the server still refers to is here.
 */
export class ReceivedGuards {
  private readonly guards = new Map<number, Guard>();

  constructor(private readonly size = 2 * LINK_GUARDS) {}

  /** The request with its guard; undefined when the guard is neither in it nor remembered (the call must not run). */
  resolve(run: LinkRun): RunMessage | undefined {
    const { guardId, guard: sent, ...rest } = run;
    const guard = sent ?? this.guards.get(guardId);
    if (!guard) return undefined;
    this.guards.delete(guardId);
    this.guards.set(guardId, guard);
    if (this.guards.size > this.size) this.guards.delete(this.guards.keys().next().value!);
    return { ...rest, guard };
  }
}
