export * from "./schemas.js";
export * from "./tool-output.js";
export * from "./events.js";
export * from "./procedures.js";
export { GATEHOUSE_ERROR_CODES, gatehouseCodeOf, isGatehouseErrorCode, type GatehouseErrorCode } from "./error-codes.js";
export { describeIssues } from "./issues.js";
export { backoffMs, cutText } from "./limits.js";
export { boundedDepth, MAX_JSON_DEPTH, nestsDeeperThan, textNestsDeeperThan, nestedTooDeep } from "./json-depth.js";
export * from "./show.js";
// Types only: the router itself (tRPC's server setup) is `@gatehouse/protocol/router`, for the server.
export type { AppRouter, Context, Handlers, Principal, Role, TrackedEvent } from "./router.js";
export { closeClient, createGatehouseClient, type ClientOptions, type GatehouseClient } from "./client.js";
export {
  LINK_GUARDS,
  LinkFromWorker,
  LinkRequest,
  LinkRun,
  NetworkAnswerMessage,
  NetworkAskMessage,
  NetworkDecidedMessage,
  OUTPUT_CHUNK_CHARS,
  WORKER_LINK_PATH,
  type LinkToWorker,
} from "./worker-link.js";
export { ReceivedGuards, SentGuards } from "./link-guards.js";
export { compactionNotice } from "./context-compaction.js";
export { AssumedPaths, REAL_PATHS_REQUEST, RealPathsAnswer, RealPathsRequest, Resolved } from "./real-paths.js";
