import WebSocket from "ws";
import { createGatehouseClient, type ClientOptions, type GatehouseClient } from "./client.js";
import { trustServer, type TlsClientOptions, type TrustOptions } from "./tls-trust.js";

export { defaultKnownServersFile, KnownServers, normalizeFingerprint } from "./known-servers.js";
export { TrustError, type TrustErrorCode } from "./errors.js";
export { trustServer, type TlsClientOptions, type TrustOptions } from "./tls-trust.js";

/** `ws` with TLS options applied to every connection it opens (a pinned certificate, say). */
export function webSocketWith(tls: TlsClientOptions): typeof WebSocket {
  if (Object.keys(tls).length === 0) return WebSocket;
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols, tls as unknown as WebSocket.ClientOptions);
    }
  } as typeof WebSocket;
}

export type NodeClientOptions = Omit<ClientOptions, "WebSocket"> & { tls?: TlsClientOptions };

/** The client factory for Node: the `ws` package (Node 20 has no global WebSocket). */
export function createNodeClient(opts: NodeClientOptions): GatehouseClient {
  const Impl = webSocketWith(opts.tls ?? {});
  return createGatehouseClient({ ...opts, WebSocket: Impl as unknown as typeof globalThis.WebSocket });
}

/** Decides whether to trust the server (CA, or a fingerprint pinned on first use), then makes a client of it. */
export async function connectNodeClient(opts: Omit<NodeClientOptions, "tls"> & { trust?: TrustOptions }): Promise<GatehouseClient> {
  const tls = await trustServer(opts.url, opts.trust);
  return createNodeClient({ ...opts, tls });
}
