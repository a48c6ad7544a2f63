import { createTRPCClient, createWSClient, httpLink, splitLink, wsLink, type TRPCClient } from "@trpc/client";
import type { AppRouter } from "./router.js";

export interface ClientOptions {
  /** ws:// or wss:// address of the server. */
  url: string;
  token: string;
  /** A WebSocket implementation: the browser's by default; pass `ws` in Node (see ./node). */
  WebSocket?: typeof globalThis.WebSocket;
  onOpen?: () => void;
  onClose?: (cause?: { code?: number }) => void;
  /** Delay before reconnect attempt N (0-based); exponential up to 5 s by default. */
  retryDelayMs?: (attempt: number) => number;
  /**
   * "ws": everything over the WebSocket. "split": subscriptions over the WebSocket, queries and
   * mutations over HTTP to the same port. tRPC's WebSocket client holds every request for a
   * timer tick (at least 1 ms in Node) to batch it; HTTP sends at once.
   */
  transport?: "ws" | "split";
  /** The fetch the HTTP link uses (the split transport); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

export type GatehouseClient = TRPCClient<AppRouter>;

const sockets = new WeakMap<object, { close(): Promise<void> }>();

/** Closes the client's WebSocket; its subscriptions end. */
export function closeClient(client: GatehouseClient): Promise<void> {
  return sockets.get(client)?.close() ?? Promise.resolve();
}

/** A typed client over one WebSocket that reconnects by itself; subscriptions resume by lastEventId. */
export function createGatehouseClient(opts: ClientOptions): GatehouseClient {
  const ws = createWSClient({
    url: opts.url,
    connectionParams: () => ({ token: opts.token }),
    retryDelayMs: opts.retryDelayMs ?? ((n) => Math.min(5000, 100 * 2 ** n)),
    ...(opts.WebSocket ? { WebSocket: opts.WebSocket } : {}),
    ...(opts.onOpen ? { onOpen: opts.onOpen } : {}),
    ...(opts.onClose ? { onClose: opts.onClose } : {}),
  });
  const viaWs = wsLink<AppRouter>({ client: ws });
  const viaHttp = httpLink<AppRouter>({ url: opts.url.replace(/^ws/, "http"), headers: () => ({ authorization: `Bearer ${opts.token}` }), ...(opts.fetch ? { fetch: opts.fetch } : {}) });
  const links = opts.transport === "split" ? [splitLink<AppRouter>({ condition: (op) => op.type === "subscription", true: viaWs, false: viaHttp })] : [viaWs];
  const trpc = createTRPCClient<AppRouter>({ links });
  sockets.set(trpc, ws);
  return trpc;
}
