export * from "./schemas.js";
export * from "./tool-output.js";
export * from "./events.js";
export * from "./procedures.js";
export { describeIssues } from "./issues.js";
export { backoffMs, cutText } from "./limits.js";
export { escapeCodePoint, isShowable, originalOf, safeLine, safeText, showJson, showText, unescapeShown, UnescapeError, type ShownText } from "./safe-text.js";
export { lookAlikes, type LookAlike } from "./look-alikes.js";
export { cutLine, describeCuts, inSight, SCREEN_LIMITS, type Cut, type InSight, type SightLimits } from "./in-sight.js";
export { approvalMark, describeMark, safeArguments, safePresentation, type CallMark } from "./shown-call.js";
// Types only: the router itself (tRPC's server setup) is `@gatehouse/protocol/router`, for the server.
export type { AppRouter, Context, Handlers, Principal, Role, TrackedEvent } from "./router.js";
export { closeClient, createGatehouseClient, type ClientOptions, type GatehouseClient } from "./client.js";
export { LINK_GUARDS, LinkFromWorker, LinkRequest, LinkRun, OUTPUT_CHUNK_CHARS, WORKER_LINK_PATH, type LinkToWorker } from "./worker-link.js";
export { ReceivedGuards, SentGuards } from "./link-guards.js";
export { compactionNotice } from "./context-compaction.js";
