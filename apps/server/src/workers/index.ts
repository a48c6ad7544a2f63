// The workers the server knows and how a call reaches one. Both transports end in the registry's
// connection (send a message, end the link): the worker link (`transport/worker-link.ts`, one plain
// WebSocket, which the bundled worker uses for its lower cost per call and its streamed output) and the
// tRPC `worker.*` procedures (`transport/handlers/worker.ts`), kept for workers written against the
// protocol's typed client in any language.
export { changedServers, mcpServerNotice } from "./mcp-server-notices.js";
export { PersonShell } from "./person-shell.js";
export { type OtherInstances, type ToolCall, type WorkerEntry, WorkerRegistry } from "./worker-registry.js";
