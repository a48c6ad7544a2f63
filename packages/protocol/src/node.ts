import WebSocket from "ws";
import { createGatehouseClient, type ClientOptions, type GatehouseClient } from "./client.js";
import { nodeFetch } from "./node-fetch.js";

/** The client factory for Node: the `ws` package (Node 20 has no global WebSocket) and a keep-alive fetch. */
export function createNodeClient(opts: Omit<ClientOptions, "WebSocket">): GatehouseClient {
  return createGatehouseClient({ fetch: nodeFetch, ...opts, WebSocket: WebSocket as unknown as typeof globalThis.WebSocket });
}
