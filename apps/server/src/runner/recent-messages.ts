import type { Message } from "@gatehouse/protocol";

/** Sessions whose last turn's messages are kept; the least recently used are let go. */
const LIMIT = 64;

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * The messages of sessions' recent turns. A turn reads its session's messages back from the store
 * (another instance may have run a turn in between); where they are the same as the ones this
 * process had, it takes the objects it had, so that what was made from each message for the model
 * (its provider form, the request body's text) is not made again at every turn's first step.
 */
export class RecentMessages {
  private readonly bySession = new Map<string, readonly Message[]>();

  /** Remembers a session's messages as its turn ends. */
  keep(sessionId: string, messages: readonly Message[]): void {
    this.bySession.delete(sessionId);
    this.bySession.set(sessionId, messages);
    if (this.bySession.size > LIMIT) this.bySession.delete(this.bySession.keys().next().value!);
  }

  /** `loaded`, with the leading messages equal to the ones remembered replaced by those. */
  reuse(sessionId: string, loaded: Message[]): Message[] {
    const known = this.bySession.get(sessionId) ?? [];
    for (let i = 0; i < Math.min(known.length, loaded.length) && sameValue(known[i], loaded[i]); i++) loaded[i] = known[i]!;
    return loaded;
  }
}
