import fs from "node:fs";
import type { IncomingMessage } from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Duplex } from "node:stream";
import { createAppRouter, WORKER_LINK_PATH, type SessionInfo } from "@gatehouse/protocol";
import { createHTTPServer } from "@trpc/server/adapters/standalone";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import { WebSocketServer } from "ws";
import { AgentRunner } from "./agent-runner.js";
import { AgentLayers, agentsOf, findAgent, maySpawn } from "./agents.js";
import { ApprovalGate } from "./approval-gate.js";
import { Tokens } from "./auth.js";
import type { ServerConfig } from "./config.js";
import { EventHub } from "./event-hub.js";
import { createHandlers } from "./handlers.js";
import { MemoryStore } from "./memory-store.js";
import { present } from "./presentation.js";
import { Models } from "./models.js";
import { loadScenario, parseScenario } from "./providers/scripted.js";
import { Subagents } from "./subagents.js";
import { systemPrompt } from "./system-prompt.js";
import { taskTool } from "./task-tool.js";
import type { Store } from "./store.js";
import { refuseWorkerLink, serveWorkerLink } from "./worker-link.js";
import { WorkerPermissions } from "./worker-permissions.js";
import { WorkerRegistry } from "./worker-registry.js";

export interface RunningServer {
  url: string;
  port: number;
  store: Store;
  close(): Promise<void>;
}

const FALLBACK_SCENARIO = parseScenario(
  JSON.stringify({ name: "no-model", steps: [{ text: "This is Gatehouse's scripted model: no model is configured, so it only answers with this line." }] }),
  "built-in.json",
);

const now = () => new Date().toISOString();

/** Starts the server: tRPC over WebSocket and HTTP on one port. */
export async function startServer(config: ServerConfig): Promise<RunningServer> {
  await ApprovalGate.ready();
  fs.mkdirSync(path.join(config.dataDir, "workers"), { recursive: true });
  const store = new MemoryStore();
  const hub = new EventHub(store);
  const permissions = new WorkerPermissions(config.dataDir);
  const models = new Models(config, FALLBACK_SCENARIO);
  models.check(config.model);
  const agentLayers = new AgentLayers(os.homedir());
  const sessionsOf = (workerId: string) => store.listSessions().filter((s) => s.workerId === workerId);
  const registry = new WorkerRegistry(
    {
      connected: (workerId) => {
        for (const s of sessionsOf(workerId)) if (!s.parentId) hub.publish({ type: "worker_connected", sessionId: s.id, at: now(), workerId });
      },
      disconnected: (workerId) => {
        for (const s of sessionsOf(workerId)) {
          gate.cancelSession(s.id, "worker disconnected");
          if (!s.parentId) hub.publish({ type: "worker_disconnected", sessionId: s.id, at: now(), workerId });
        }
      },
    },
    config.heartbeatTimeoutMs,
  );
  const currentText = async (session: SessionInfo, file: string): Promise<string | null> => {
    if (gate.evaluate({ ...session, mode: "default" }, { tool: "read_file", args: { path: file } }).action !== "allow") return null;
    const got = await registry.dispatch(session.workerId, { sessionId: session.id, toolName: "read_file", args: { path: file, raw: true }, timeoutMs: 10_000, guard: gate.guard(session) });
    return got.ok ? got.output : "";
  };
  const gate: ApprovalGate = new ApprovalGate({
    store,
    hub,
    permissions,
    registry,
    protectedPaths: [config.dataDir, ...config.protectedPaths],
    approvalTimeoutMs: config.approvalTimeoutMs,
    present: (session, call, whole) => present({ workDir: (s) => registry.get(s.workerId)?.workDir ?? "/", currentText, mcpOrigin: (s, tool) => registry.get(s.workerId)?.tools.find((t) => t.name === tool)?.mcp }, session, call, whole),
    agentLayer: (session) => agentLayers.forSession(session, registry.get(session.workerId)),
  });
  const subagents = new Subagents({ store, hub, registry, openModel: (child, parent) => models.openChild(child, parent) });
  const runner = new AgentRunner({
    store,
    hub,
    gate,
    registry,
    subagents,
    providerFor: (s) => models.providerFor(s),
    toolsFor: (s) => {
      const worker = registry.get(s.workerId);
      const spawns = maySpawn(s, findAgent(worker, s.agent), subagents.depth(s) + 1);
      return [...(worker?.tools ?? []), ...(spawns ? [taskTool(agentsOf(worker))] : [])];
    },
    maxSteps: config.maxSteps,
    toolTimeoutMs: config.toolTimeoutMs,
    maxToolResultChars: config.maxToolResultChars,
    systemPrompt: (s) => {
      const worker = registry.get(s.workerId);
      return systemPrompt({ workDir: worker?.workDir ?? "an unknown directory", agent: findAgent(worker, s.agent), skills: worker?.skills ?? [] });
    },
  });
  const handlers = createHandlers({
    store, hub, gate, runner, registry, permissions, toolTimeoutMs: config.toolTimeoutMs, defaultModel: config.model,
    openModel: (session, scenario) => {
      const file = scenario ?? config.scenario;
      models.open(session, file ? loadScenario(file) : undefined);
    },
  });
  const router = createAppRouter(handlers);
  const tokens = new Tokens(config.workerTokens, config.clientTokens);
  const http = createHTTPServer({ router, createContext: ({ req }) => ({ principal: tokens.fromAuthorization(req.headers.authorization) }) });
  const wss = new WebSocketServer({ noServer: true });
  const links = new WebSocketServer({ noServer: true });
  links.on("connection", (socket) => serveWorkerLink(socket, registry));
  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? "/", "http://x").pathname !== WORKER_LINK_PATH) return wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
    const refused = refuseWorkerLink(tokens, req);
    if (!refused) return links.handleUpgrade(req, socket, head, (ws) => links.emit("connection", ws, req));
    socket.end(`HTTP/1.1 ${refused.status} ${refused.message}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  const wsHandler = applyWSSHandler({
    wss,
    router,
    createContext: ({ info }) => ({ principal: tokens.principal(info.connectionParams?.token) }),
    keepAlive: { enabled: true, pingMs: 1000, pongWaitMs: 2000 },
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(config.port, config.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  return {
    url: `ws://${config.host}:${port}`,
    port,
    store,
    close: async () => {
      registry.close();
      gate.close();
      wsHandler.broadcastReconnectNotification();
      for (const client of [...wss.clients, ...links.clients]) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => links.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
