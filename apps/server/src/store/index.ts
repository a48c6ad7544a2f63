// What the server keeps: sessions, messages, events, pending and answered approvals, the audit log, in
// memory, embedded SQLite or PostgreSQL; and the event hub that stores an event before any client sees it.
export { auditEntry, ruleLabel } from "./audit-entry.js";
export { keepAuditFor } from "./audit-retention.js";
export { databaseFiles } from "./database-files.js";
export { EventHub } from "./event-hub.js";
export { eventFrames, eventText } from "./event-text.js";
export { openStore, stateFile } from "./open-store.js";
export { EVENTS_CHANNEL, PostgresStore } from "./postgres/store.js";
export { isReplayItem } from "./replay-items.js";
export type { EditedCall, Resolution } from "./resolution.js";
export { depthOf, familyOf } from "./session-family.js";
export { isStoreFailure, storeFailureMessage, untilStored } from "./store-retry.js";
export type { AnsweredRecord, PendingRecord, RuntimeRuleRecord, Store, StoredEvent } from "./store.js";
export { trackedData } from "./tracked.js";
