import { createTRPCClient, createWSClient, wsLink, type TRPCClient } from "@trpc/client";
import { backoffMs } from "./limits.js";
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
    retryDelayMs: opts.retryDelayMs ?? ((n) => backoffMs(n, 100, 5000)),
    // A server that vanished without closing the socket (a lost network, a frozen host) is noticed too.
    keepAlive: { enabled: true, intervalMs: 3000, pongTimeoutMs: 2000 },
    ...(opts.WebSocket ? { WebSocket: opts.WebSocket } : {}),
    ...(opts.onOpen ? { onOpen: opts.onOpen } : {}),
    ...(opts.onClose ? { onClose: opts.onClose } : {}),
  });
  const trpc = createTRPCClient<AppRouter>({ links: [wsLink<AppRouter>({ client: ws })] });
  sockets.set(trpc, ws);
  return trpc;
}
