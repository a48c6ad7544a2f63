import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { silentLog } from "@gatehouse/log";
import type { RunMessage, SessionInfo, ToolOutput } from "@gatehouse/protocol";
import { AgentRunner, type RunnerOptions } from "../src/runner/agent-runner.js";
import { ApprovalGate, type GateOptions } from "../src/gate/approval-gate.js";
import { parseScenario, ScriptedProvider } from "../src/runner/providers/scripted.js";
import { Subagents } from "../src/runner/subagents.js";
import { EventHub } from "../src/store/event-hub.js";
import { MemoryStore } from "../src/store/memory-store.js";
import { WorkerPermissions, workerRulesFile } from "../src/gate/worker-permissions.js";
import { WorkerRegistry } from "../src/workers/worker-registry.js";

/** A gate with its store, hub, registry and a worker `w1` registered, in this process, on a temporary data directory. */
/** Where each asked path leads on this machine (the fixtures make no dangling links). */
function realPathsHere(run: RunMessage): ToolOutput {
  const paths = (run.args.paths ?? []) as string[];
  return { ok: true, output: JSON.stringify(Object.fromEntries(paths.map((p) => [p, { real: fs.existsSync(p) ? fs.realpathSync(p) : p }]))) };
}

export function gateFixture(rules: string, opts: { approvalTimeoutMs?: number; present?: GateOptions["present"] } = {}) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-gate-")));
  const dataDir = path.join(root, "data");
  const workDir = path.join(root, "work");
  fs.mkdirSync(workDir);
  const rulesFile = workerRulesFile(dataDir, "w1");
  fs.mkdirSync(path.dirname(rulesFile), { recursive: true });
  fs.writeFileSync(rulesFile, rules);
  const store = new MemoryStore();
  const hub = new EventHub(store);
  const registry = new WorkerRegistry({ connected: () => undefined, disconnected: () => undefined }, silentLog, 60_000);
  registry.register({
    workerId: "w1",
    workDir,
    home: root,
    // The built-in tools with the tiers a real worker gives them: a call of any other tool is denied as missing.
    tools: [
      { name: "shell_exec", description: "", inputSchema: {}, tier: "exec" },
      { name: "read_file", description: "", inputSchema: {}, tier: "read" },
      { name: "write_file", description: "", inputSchema: {}, tier: "write" },
      { name: "edit_file", description: "", inputSchema: {}, tier: "write" },
      { name: "glob", description: "", inputSchema: {}, tier: "read" },
      { name: "grep", description: "", inputSchema: {}, tier: "read" },
    ],
    agents: [],
    skills: [],
  });
  const gate = new ApprovalGate({
    store,
    hub,
    registry,
    log: silentLog,
    permissions: new WorkerPermissions(dataDir),
    protectedPaths: [dataDir],
    approvalTimeoutMs: opts.approvalTimeoutMs,
    present: opts.present ?? (async () => null),
    agentLayer: () => undefined,
  });
  const session = (id = "s1", mode: SessionInfo["mode"] = "default"): SessionInfo => {
    const info: SessionInfo = {
      id,
      workerId: "w1",
      agent: "general",
      model: "scripted",
      mode,
      parentId: null,
      createdAt: new Date().toISOString(),
      status: "idle",
    };
    void store.putSession(info);
    return info;
  };
  /** Serves the worker's side in this process: each call is answered by `answer`. */
  /** Tool calls go to `answer`; the gate's questions about real paths are answered from this machine's files. */
  const serveWorker = (answer: (run: RunMessage) => ToolOutput) =>
    registry.attach("w1", (m) => {
      if (m.type === "run") queueMicrotask(() => registry.result("w1", m.requestId, m.origin === "gate" ? realPathsHere(m) : answer(m)));
    });
  const close = () => {
    gate.close();
    registry.close();
    fs.rmSync(root, { recursive: true, force: true });
  };
  return { root, workDir, rulesFile, store, hub, registry, gate, session, serveWorker, close };
}

/** An agent runner on the fixture's gate, whose model plays `steps` (a scripted scenario's steps). */
export function scriptedRunner(f: ReturnType<typeof gateFixture>, steps: unknown[], options: Partial<RunnerOptions> = {}): AgentRunner {
  const provider = new ScriptedProvider(parseScenario(JSON.stringify({ name: "t", steps }), "t.json"));
  const subagents = new Subagents({ store: f.store, hub: f.hub, registry: f.registry, openModel: () => undefined });
  return new AgentRunner({
    store: f.store,
    hub: f.hub,
    gate: f.gate,
    registry: f.registry,
    subagents,
    log: silentLog,
    providerFor: () => provider,
    toolsFor: async (s: SessionInfo) => f.registry.get(s.workerId)?.tools ?? [],
    maxSteps: 5,
    toolTimeoutMs: 5000,
    maxToolResultChars: 1000,
    systemPrompt: () => "test",
    whenWorkerOnline: async () => undefined,
    ...options,
  });
}
