/**
 * Items a subscription's source reads from the store (a replay of pending approvals and missed
 * events) rather than receives live. They wait in the store, not in memory, so the connection
 * takes them only as fast as it sends them: a replay of any length is never counted as its
 * subscriber's backlog.
 */
const replayed = new WeakSet<object>();

export function replayItem<T extends object>(item: T): T {
  replayed.add(item);
  return item;
}

export function isReplayItem(item: unknown): boolean {
  return typeof item === "object" && item !== null && replayed.has(item);
}
