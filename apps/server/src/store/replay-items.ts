import { trackedData } from "./tracked.js";

/**
 * Items a subscription's source reads from the store (a replay of pending approvals and missed
 * events) rather than receives live. They wait in the store, not in memory, so the connection
 * takes them only as fast as it sends them: a replay of any length is never counted as its
 * subscriber's backlog.
 */
const replayed = new WeakSet<object>();

/** Marks an item as replayed, and the event it carries: a tracked subscription yields the event with its id. */
export function replayItem<T extends object>(item: T): T {
  replayed.add(item);
  if ("event" in item && typeof item.event === "object" && item.event !== null) replayed.add(item.event);
  return item;
}

export function isReplayItem(item: unknown): boolean {
  const data = trackedData(item);
  return typeof data === "object" && data !== null && replayed.has(data);
}
