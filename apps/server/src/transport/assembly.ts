import path from "node:path";
import type { Handlers, McpServerStatus, SessionInfo } from "@gatehouse/protocol";
import { homeDirectory } from "@gatehouse/policy/node";
import { AgentRunner } from "../runner/index.js";
import { AgentLayers, agentsOf, findAgent, maySpawn } from "../runner/index.js";
import { ApprovalGate } from "../gate/index.js";
import type { ServerConfig } from "../config/index.js";
import { databaseFiles, EventHub } from "../store/index.js";
import { createHandlers } from "./handlers/index.js";
import type { Log } from "../log.js";
import { contextWindow } from "../runner/index.js";
import { Models, ScenarioBook } from "../runner/index.js";
import { PersonShell } from "../workers/index.js";
import type { PostgresCluster } from "../cluster/index.js";
import { routeToOwners } from "../cluster/index.js";
import { present } from "../gate/index.js";
import { patchSession } from "../runner/index.js";
import { loadScenario, parseScenario } from "../runner/index.js";
import { ownSecrets } from "../gate/index.js";
import type { Store } from "../store/index.js";
import { Subagents } from "../runner/index.js";
import { systemPrompt } from "../runner/index.js";
import { taskTool } from "../runner/index.js";
import { WorkerPermissions } from "../gate/index.js";
import { WorkerRegistry } from "../workers/index.js";
import { NetworkAsks } from "../gate/index.js";
import { now } from "../clock.js";
import { changedServers, mcpServerNotice } from "../workers/index.js";

const FALLBACK_SCENARIO = parseScenario(
  JSON.stringify({
    name: "no-model",
    steps: [
      {
        text:
          "This is Gatehouse's scripted model: no model is configured, so it only answers with this line. " +
          "A server started with --model PROVIDER:MODEL (docs/models.md) answers with that model; a session given --scenario FILE plays the scenario.",
      },
    ],
  }),
  "built-in.json",
);

/** The server's parts, wired: what the procedures need, apart from how they are reached. */
export interface Assembly {
  store: Store;
  registry: WorkerRegistry;
  gate: ApprovalGate;
  /** Connections that workers' commands make and the rules ask about. */
  networkAsks: NetworkAsks;
  handlers: Handlers;
  /** Resolves once the notices to sessions that their worker came or went are written. */
  noticesWritten: () => Promise<void>;
}

/** Builds the event hub, worker registry, gate, models, runner and handlers around a store, from the config. */
export async function assemble(config: ServerConfig, log: Log, store: Store, cluster?: PostgresCluster): Promise<Assembly> {
  const hub = new EventHub(store, undefined, log);
  if (cluster) hub.relayThrough((stored) => cluster.stored(stored));
  const permissions = new WorkerPermissions(config.dataDir);
  const models = new Models(config, FALLBACK_SCENARIO, process.env, new ScenarioBook(path.join(config.dataDir, "scenarios")));
  models.check(config.model);
  if (config.context.summaryModel) models.check(config.context.summaryModel);
  const agentLayers = new AgentLayers(homeDirectory());
  /** Tells a worker's sessions it came or went; a lost worker's pending approvals are cancelled. */
  const tellSessions = async (workerId: string, connected: boolean) => {
    for (const s of await store.listSessions({ workerId })) {
      if (!connected) await gate.cancelSession(s.id, "worker disconnected");
      if (!s.parentId) await hub.publish({ type: connected ? "worker_connected" : "worker_disconnected", sessionId: s.id, at: now(), workerId });
    }
  };
  // Notices still being written: the server waits for them before it closes the store.
  const notices = new Set<Promise<void>>();
  const told = (workerId: string, connected: boolean) => {
    const notice = tellSessions(workerId, connected)
      .catch((err: unknown) => log.error("could not tell sessions about their worker", { err, workerId }))
      .finally(() => notices.delete(notice));
    notices.add(notice);
  };
  const noticesWritten = async () => void (await Promise.all(notices));
  /** Tells a worker's sessions of its MCP servers that failed or run again. */
  const tellMcp = (workerId: string, current: readonly McpServerStatus[], before: readonly McpServerStatus[]) => {
    const changed = changedServers(current, before);
    if (changed.length === 0) return;
    for (const s of changed.filter((m) => m.problem !== null)) log.warn(`worker ${workerId}: MCP server ${s.name} ${s.problem}`);
    const notice = (async () => {
      for (const s of await store.listSessions({ workerId }))
        if (!s.parentId) for (const status of changed) await hub.publish(mcpServerNotice(s.id, workerId, status));
    })()
      .catch((err: unknown) => log.error("could not tell sessions about an MCP server", { err, workerId }))
      .finally(() => notices.delete(notice));
    notices.add(notice);
  };
  const registry = new WorkerRegistry(
    {
      connected: (workerId) => told(workerId, true),
      disconnected: (workerId) => told(workerId, false),
      mcpServersChanged: tellMcp,
    },
    log,
    config.heartbeatTimeoutMs,
    config.replaceOnlineWorkers,
  );
  const currentText = async (session: SessionInfo, file: string): Promise<string | { unread: string }> => {
    if (gate.evaluate({ ...session, mode: "default" }, { tool: "read_file", args: { path: file } }).action !== "allow")
      return { unread: "read_file does not allow it now" };
    const got = await registry.dispatch(session.workerId, {
      sessionId: session.id,
      toolName: "read_file",
      args: { path: file, raw: true },
      timeoutMs: 10_000,
      guard: gate.guard(session),
    });
    if (got.ok) return got.output;
    // A file that does not exist is new; any other failure says why its content is not shown.
    return /\bENOENT\b/.test(got.output) ? "" : { unread: `the worker could not read it: ${got.output}` };
  };
  const gate: ApprovalGate = new ApprovalGate({
    store,
    hub,
    permissions,
    registry,
    protectedPaths: ownSecrets(config, await databaseFiles(store, log)),
    approvalTimeoutMs: config.approvalTimeoutMs,
    present: (session, call, whole) =>
      present(
        {
          workDir: (s) => registry.get(s.workerId)?.workDir ?? "/",
          currentText,
          mcpOrigin: (s, tool) => registry.get(s.workerId)?.tools.find((t) => t.name === tool)?.mcp,
        },
        session,
        call,
        whole,
      ),
    agentLayer: (session) => agentLayers.forSession(session, registry.get(session.workerId)),
    log,
  });
  await gate.load();
  const subagents = new Subagents({ store, hub, registry, openModel: (child, parent) => models.openChild(child, parent) });
  const runner = new AgentRunner({
    store,
    hub,
    gate,
    registry,
    subagents,
    providerFor: (s) => models.providerFor(s),
    toolsFor: async (s) => {
      const worker = registry.get(s.workerId);
      const spawns = maySpawn(s, findAgent(worker, s.agent), (await subagents.depth(s)) + 1);
      return [...(worker?.tools ?? []), ...(spawns ? [taskTool(agentsOf(worker))] : [])];
    },
    whenWorkerOnline: async (workerId, signal) => {
      const until = Date.now() + 3 * config.heartbeatTimeoutMs;
      while (!registry.get(workerId)?.connected && Date.now() < until && !signal.aborted) await new Promise((r) => setTimeout(r, 100));
    },
    ...(cluster && { stillOwns: (sessionId: string) => cluster.holds(sessionId) }),
    maxSteps: config.maxSteps,
    toolTimeoutMs: config.toolTimeoutMs,
    maxToolResultChars: config.maxToolResultChars,
    context: {
      compactAt: config.context.compactAt,
      windowOf: (s) => contextWindow(s.model, config.context.windows),
      summariserFor: (s) => models.summariserFor(s, (err) => log.warn("a checkpoint's summary was written without a model", { sessionId: s.id, err })),
    },
    systemPrompt: (s) => {
      const worker = registry.get(s.workerId);
      return systemPrompt({ workDir: worker?.workDir ?? "an unknown directory", agent: findAgent(worker, s.agent), skills: worker?.skills ?? [] });
    },
    log,
  });
  const shell = new PersonShell({ registry, hub, store, guard: (s) => gate.guard(s), timeoutMs: config.toolTimeoutMs });
  const networkAsks = new NetworkAsks({ gate, store, registry, log });
  const handlers = createHandlers({
    store,
    hub,
    gate,
    runner,
    registry,
    shell,
    permissions,
    log,
    toolTimeoutMs: config.toolTimeoutMs,
    defaultModel: config.model,
    openModel: (session, scenario) => {
      const file = scenario ?? config.scenario;
      models.open(session, file ? loadScenario(file) : undefined);
    },
  });
  if (!cluster) {
    await carryOnAfterRestart(store, runner, log);
    return { store, registry, gate, networkAsks, handlers, noticesWritten };
  }
  registry.shareWith(cluster.otherInstances());
  const routed = routeToOwners(handlers, cluster);
  const resume = async (sessionIds: string[]) => {
    for (const id of sessionIds) {
      await gate.reloadRules(id);
      await runner.resume(id);
    }
  };
  await cluster.start({
    registry,
    deliver: (stored) => hub.deliver(stored),
    commands: routed.commands,
    resume,
    release: (ids) => runner.release(ids),
    abortShells: (sessionId, by) => shell.abort(sessionId, by),
  });
  return { store, registry, gate, networkAsks, handlers: routed.handlers, noticesWritten };
}

/** Turns that were running when this server last stopped (their sessions say so) are carried on. */
async function carryOnAfterRestart(store: Store, runner: AgentRunner, log: Log): Promise<void> {
  for (const session of await store.listSessions({ parentId: null })) {
    if (session.status !== "running") continue;
    if (!(await runner.resume(session.id))) await patchSession(store, session.id, { status: "idle" });
    else log.info("a turn the server's stop cut short is carried on", { sessionId: session.id });
  }
}
