// How the server is reached: HTTP and WebSocket, the tRPC procedures and their middleware (access,
// limits, store failures, error codes), the worker link, the browser console's files; and `assembly.ts`,
// which wires the other boxes together behind the procedures.
export { hashToken } from "./auth.js";
export { type RunningServer, startServer } from "./server.js";
