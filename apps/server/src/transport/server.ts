import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Duplex } from "node:stream";
import { WORKER_LINK_PATH } from "@gatehouse/protocol";
import { createAppRouter } from "@gatehouse/protocol/router";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import { createServer as createPlainServer } from "node:http";
import https from "node:https";
import { WebSocketServer, type WebSocket } from "ws";
import { ApprovalGate } from "../gate/index.js";
import { eventFrames } from "../store/index.js";
import { GatehouseError } from "../errors.js";
import { coalesceWrites } from "./coalesced-writes.js";
import { allowFrames } from "./frame-limit.js";
import { assemble } from "./assembly.js";
import { Tokens } from "./auth.js";
import type { ServerConfig } from "../config/index.js";
import { keepAuditFor } from "../store/index.js";
import { openStore } from "../store/index.js";
import { joinCluster } from "../cluster/index.js";
import type { Store } from "../store/index.js";
import { admitWorkerLink, serveWorkerLink } from "./worker-link.js";
import { closeReason, Connections, streamPeer } from "./connections.js";
import { perTokenLimits, TokenLimits } from "./limits.js";
import { createLog, type Log } from "../log.js";
import { logProcedureError } from "./procedure-errors.js";
import { quietRepeats } from "./quiet-repeats.js";
import { accessChecks } from "./roles/access.js";
import { gatehouseErrors } from "./procedure-failures.js";
import { sayIfFull, storeErrors } from "./store-errors.js";
import { isLoopback, serverTls } from "./tls.js";
import { createConsoleHandler } from "./web-console.js";

export interface RunningServer {
  url: string;
  port: number;
  store: Store;
  /** The SHA-256 fingerprint of the certificate served; null when plain. */
  fingerprint: string | null;
  /** Takes new tokens and limits; connections whose token was removed or changed are closed (their count returned). */
  reloadTokens(next: Pick<ServerConfig, "workerTokens" | "clientTokens" | "limits">): number;
  close(): Promise<void>;
}

export interface ServerOptions {
  log?: Log;
  /** The store to keep state in; the one the config names when not given. */
  store?: Store;
}

/** Whether an HTTP request declares a body no larger than `bytes` (a chunked one of unknown size is not). */
function smallEnough(req: IncomingMessage, bytes: number): boolean {
  if (req.method === "GET" || req.method === "HEAD") return true;
  const length = req.headers["content-length"];
  return length !== undefined && Number(length) <= bytes;
}

/** Starts the server: tRPC over WebSocket and HTTP, and the browser console, on one port. */
export async function startServer(config: ServerConfig, opts: ServerOptions = {}): Promise<RunningServer> {
  const log = quietRepeats(opts.log ?? createLog());
  await ApprovalGate.ready();
  fs.mkdirSync(path.join(config.dataDir, "workers"), { recursive: true });
  const cluster = opts.store ? undefined : await joinCluster(config.store, log);
  const store = opts.store ?? cluster?.store ?? (await openStore(config.store, config.dataDir));
  sayIfFull(config.dataDir, log);
  const { registry, gate, networkAsks, handlers, noticesWritten } = await assemble(config, log, store, cluster);
  const stopPruning = keepAuditFor(store, config.auditRetentionDays, log);
  let tokens = new Tokens(config.workerTokens, config.clientTokens);
  let limits = config.limits;
  const connections = new Connections(
    (p) =>
      p.kind === "worker"
        ? { max: limits.workerLinksPerToken, setting: "workerLinksPerToken" }
        : { max: limits.connectionsPerToken, setting: "connectionsPerToken" },
    log,
  );
  const tokenLimits = new TokenLimits(() => limits, log);
  const router = createAppRouter(handlers, {
    middleware: [
      perTokenLimits(tokenLimits, connections, () => limits.subscriberBacklogBytes, log),
      storeErrors(config.dataDir, log),
      accessChecks(store, log),
      gatehouseErrors,
    ],
  });
  const onError = logProcedureError(log);
  const tls = await serverTls(config.tls, config.host, config.dataDir);
  const httpHandler = (maxBodySize: number) =>
    createHTTPHandler({
      router,
      maxBodySize,
      onError,
      createContext: ({ req, res, info }) => {
        const principal = tokens.fromAuthorization(req.headers.authorization);
        // A subscription's stream holds its connection open: it counts against the token's connections like a WebSocket.
        if (principal && info.type === "subscription") {
          const refused = connections.admit(principal, streamPeer(res));
          if (refused) throw new GatehouseError("TOO_MANY_CONNECTIONS", refused).toTRPC();
          res.once("close", () => connections.drop(principal));
        }
        return { principal };
      },
    });
  let rpc = httpHandler(limits.clientFrameBytes);
  const webConsole = createConsoleHandler();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (webConsole(req, res)) return;
    if (!tokens.fromAuthorization(req.headers.authorization) && !smallEnough(req, limits.preAuthFrameBytes)) {
      log.warn("limit hit: request body before authentication", { remote: req.socket.remoteAddress });
      res.writeHead(413, { "content-type": "text/plain", connection: "close" }).end("request body too large before authentication");
      return;
    }
    rpc(req, res);
  };
  const http = tls ? https.createServer({ key: tls.key, cert: tls.cert }, handler) : createPlainServer(handler);
  http.on("tlsClientError", (err: Error) => log.warn("TLS handshake failed", { error: err.message }));
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.preAuthFrameBytes });
  const links = new WebSocketServer({ noServer: true, maxPayload: limits.frameBytes });
  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    coalesceWrites(socket);
    if (new URL(req.url ?? "/", "http://x").pathname !== WORKER_LINK_PATH) return wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
    const admitted = admitWorkerLink(tokens, req);
    if ("status" in admitted) {
      log.warn("token refused", { link: "worker", status: admitted.status, remote: req.socket.remoteAddress });
      return socket.end(`HTTP/1.1 ${admitted.status} ${admitted.message}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    }
    links.handleUpgrade(req, socket, head, (ws) => {
      ws.on("error", (err) => log.warn("worker link error", { error: err.message }));
      const refused = connections.admit(admitted, ws);
      if (refused) return ws.close(1008, closeReason(refused));
      ws.once("close", () => connections.drop(admitted));
      serveWorkerLink(ws, {
        registry,
        principal: admitted,
        limits: tokenLimits,
        backlogBytes: () => limits.subscriberBacklogBytes,
        networkAsks,
        heartbeatTimeoutMs: config.heartbeatTimeoutMs,
        log,
      });
    });
  });
  const authenticated = new WeakSet<WebSocket>();
  wss.on("connection", (ws: WebSocket) => {
    const timer = setTimeout(() => authenticated.has(ws) || ws.close(4001, "no valid token shown in time"), limits.authTimeoutMs);
    ws.once("close", () => clearTimeout(timer));
  });
  const wsHandler = applyWSSHandler({
    wss,
    router,
    onError,
    createContext: ({ info, res, req }) => {
      const token = info.connectionParams?.token;
      const principal = tokens.principal(token);
      if (!principal) {
        if (token !== undefined) log.warn("token refused", { remote: req.socket.remoteAddress });
        return { principal: null };
      }
      const refused = connections.admit(principal, res);
      if (refused) {
        res.close(1008, closeReason(refused));
        return { principal: null };
      }
      res.once("close", () => connections.drop(principal));
      authenticated.add(res);
      allowFrames(res, principal.kind === "worker" ? limits.frameBytes : limits.clientFrameBytes);
      return { principal };
    },
    keepAlive: { enabled: true, pingMs: 1000, pongWaitMs: 2000 },
    experimental_encoder: eventFrames,
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(config.port, config.host, () => resolve());
  });
  http.on("error", (err) => log.error("server socket error", { error: err.message }));
  const port = (http.address() as AddressInfo).port;
  const url = `${tls ? "wss" : "ws"}://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  if (tls) log.info("serving TLS", { certificate: tls.certFile, fingerprint: tls.fingerprint, selfSigned: tls.selfSigned });
  else if (!isLoopback(config.host)) log.warn("serving plain text on a host other machines can reach (tls: off)", { host: config.host });
  log.info("server listening", { url, dataDir: config.dataDir, model: config.model });
  return {
    url,
    port,
    store,
    fingerprint: tls?.fingerprint ?? null,
    reloadTokens: (next) => {
      tokens = new Tokens(next.workerTokens, next.clientTokens);
      if (next.limits.clientFrameBytes !== limits.clientFrameBytes) rpc = httpHandler(next.limits.clientFrameBytes);
      limits = next.limits;
      // Frame limits of connections opened from now on; open ones keep theirs.
      wss.options.maxPayload = limits.preAuthFrameBytes;
      links.options.maxPayload = limits.frameBytes;
      const closed = connections.closeUnless((p) => tokens.grants(p));
      log.info("tokens reloaded", { workerTokens: next.workerTokens.length, clientTokens: next.clientTokens.length, connectionsClosed: closed });
      return closed;
    },
    close: async () => {
      log.info("server stopping");
      registry.close();
      gate.close();
      stopPruning();
      wsHandler.broadcastReconnectNotification();
      for (const client of [...wss.clients, ...links.clients]) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => links.close(() => resolve()));
      // Streams of server-sent events hold their connections open; they end with the server.
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
      await noticesWritten();
      await cluster?.close();
      await store.close();
    },
  };
}
