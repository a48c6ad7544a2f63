export * from "./schemas.js";
export * from "./tool-output.js";
export * from "./events.js";
export * from "./procedures.js";
export { createAppRouter, describeIssues, type AppRouter, type Context, type Handlers, type Principal, type Role, type TrackedEvent } from "./router.js";
export { closeClient, createGatehouseClient, type ClientOptions, type GatehouseClient } from "./client.js";
export { LinkFromWorker, WORKER_LINK_PATH, type LinkToWorker } from "./worker-link.js";
