import WebSocket from "ws";
import { createGatehouseClient, type ClientOptions, type GatehouseClient } from "./client.js";

/** The client factory for Node: the `ws` package (Node 20 has no global WebSocket). */
export function createNodeClient(opts: Omit<ClientOptions, "WebSocket">): GatehouseClient {
  return createGatehouseClient({ ...opts, WebSocket: WebSocket as unknown as typeof globalThis.WebSocket });
}
