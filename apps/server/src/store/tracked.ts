import { isTrackedEnvelope } from "@trpc/server";

/** What an item of a subscription carries: a tracked item's data (the event its id goes with), or the item itself. */
export const trackedData = (item: unknown): unknown => (isTrackedEnvelope(item) ? item[1] : item);
