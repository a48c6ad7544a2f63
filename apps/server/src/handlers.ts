import { lintRules, suggestPatterns } from "@gatehouse/policy";
import type { Handlers, SessionInfo } from "@gatehouse/protocol";
import os from "node:os";
import type { Log } from "@gatehouse/log";
import { nanoid } from "nanoid";
import type { AgentRunner } from "./agent-runner.js";
import { agentNames, agentsOf, findAgent } from "./agents.js";
import type { ApprovalGate } from "./approval-gate.js";
import { GatehouseError } from "./errors.js";
import type { EventHub } from "./event-hub.js";
import type { Store } from "./store.js";
import type { WorkerPermissions } from "./worker-permissions.js";
import type { WorkerRegistry } from "./worker-registry.js";

export interface Services {
  store: Store;
  hub: EventHub;
  gate: ApprovalGate;
  runner: AgentRunner;
  registry: WorkerRegistry;
  permissions: WorkerPermissions;
  /** Prepares a new session's model: checks a real one's configuration, loads a scripted one's scenario. */
  openModel: (session: SessionInfo, scenario: string | undefined) => void;
  defaultModel: string;
  toolTimeoutMs: number;
  log: Log;
}

const now = () => new Date().toISOString();

function rethrow(err: unknown): never {
  throw err instanceof GatehouseError ? err.toTRPC() : err;
}

/** Wraps every handler so server errors reach the client as tRPC errors with their own words. */
function guarded<T extends object>(handlers: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(handlers)) {
    out[name] = (...args: unknown[]) => {
      try {
        const result = (fn as (...a: unknown[]) => unknown)(...args);
        return result instanceof Promise ? result.catch(rethrow) : result;
      } catch (err) {
        rethrow(err);
      }
    };
  }
  return out as T;
}

export function createHandlers(s: Services): Handlers {
  const session = (id: string): SessionInfo => {
    const found = s.store.getSession(id);
    if (!found) throw new GatehouseError("NOT_FOUND", `session ${id} does not exist`);
    return found;
  };
  const worker = (id: string) => {
    const found = s.registry.get(id);
    if (!found) throw new GatehouseError("NOT_FOUND", `worker ${id} has not registered`);
    return found;
  };

  return {
    session: guarded({
      async create(p, input) {
        const w = worker(input.workerId);
        if (!findAgent(w, input.agent)) throw new GatehouseError("NOT_FOUND", `worker ${w.id} has no agent type "${input.agent}"; it has ${agentNames(w)}`);
        const info: SessionInfo = { id: nanoid(), workerId: w.id, agent: input.agent, model: input.model ?? s.defaultModel, mode: input.mode, parentId: null, createdAt: now(), status: "idle" };
        s.openModel(info, input.scenario);
        s.store.putSession(info);
        s.hub.publish({ type: "session_created", sessionId: info.id, at: now(), session: info });
        s.log.info("session created", { sessionId: info.id, workerId: info.workerId, agent: info.agent, model: info.model, mode: info.mode, by: p.name });
        return info;
      },
      async list() {
        return s.store.listSessions();
      },
      async get(_p, input) {
        return { session: session(input.sessionId), history: s.store.messages(input.sessionId) };
      },
      async setMode(_p, input) {
        const current = session(input.sessionId);
        s.store.putSession({ ...current, mode: input.mode });
        s.hub.publish({ type: "mode_changed", sessionId: current.id, at: now(), mode: input.mode });
        s.gate.recheck(current.id);
        return { applied: true };
      },
      async shell(p, input) {
        const current = session(input.sessionId);
        const ran = await s.registry.dispatch(current.workerId, { sessionId: current.id, toolName: "shell_exec", args: { command: input.command }, timeoutMs: s.toolTimeoutMs, guard: s.gate.guard(current) });
        const shell = { exitCode: ran.exitCode ?? null, stdout: ran.output, stderr: ran.stderr ?? "" };
        s.store.audit({ at: now(), sessionId: current.id, workerId: current.workerId, toolName: "shell_exec", arguments: JSON.stringify({ command: input.command }), action: "user_shell", reason: "typed by a person (!command), not gated", rule: null, by: p.name });
        s.hub.publish({ type: "shell_command", sessionId: current.id, at: now(), command: input.command, exitCode: shell.exitCode, output: shell.stdout, stderr: shell.stderr, by: p.name });
        return shell;
      },
    }),
    agent: guarded({
      async prompt(_p, input) {
        const target = session(input.sessionId);
        if (target.parentId) throw new GatehouseError("REFUSED", `session ${target.id} is a subagent of session ${target.parentId}; it takes its work from its parent`);
        return { accepted: s.runner.prompt(target, input.text) };
      },
      async abort(p, input) {
        session(input.sessionId);
        return { aborted: s.runner.abort(input.sessionId, p.name) };
      },
      events(_p, input, signal) {
        if (input.sessionId !== undefined) session(input.sessionId);
        return s.hub.subscribe(input, signal);
      },
    }),
    tool: guarded({
      async approve(p, input) {
        return { applied: await s.gate.approve(p.name, input) };
      },
      async deny(p, input) {
        return { applied: s.gate.deny(p.name, input) };
      },
      async view(_p, input) {
        const found = await s.gate.view(input.sessionId, input.approvalId);
        if (found === undefined) throw new GatehouseError("NOT_FOUND", `approval ${input.approvalId} is not pending in session ${input.sessionId}`);
        return found;
      },
    }),
    workers: guarded({
      async list() {
        return s.registry.list().map((w) => ({
          id: w.id,
          workDir: w.workDir,
          connected: w.connected,
          tools: w.tools.map(({ name, description, tier }) => ({ name, description, tier })),
          agents: agentsOf(w).map((a) => a.name),
          skills: w.skills,
        }));
      },
    }),
    worker: guarded({
      async register(_p, input) {
        s.registry.register(input);
        return { ok: true as const };
      },
      requests(_p, input, signal) {
        worker(input.workerId);
        return s.registry.requests(input.workerId, signal);
      },
      async result(_p, input) {
        const { workerId, requestId, ...output } = input;
        return { accepted: s.registry.result(workerId, requestId, output) };
      },
      async heartbeat(_p, input) {
        s.registry.heartbeat(input.workerId);
        return { ok: true as const };
      },
    }),
    permissions: guarded({
      async get(_p, input) {
        const loaded = s.permissions.load(input.workerId);
        const text = s.permissions.text(input.workerId);
        const warnings = loaded.ok ? lintRules(text, { file: loaded.file, home: os.homedir() }).warnings : [];
        return { file: loaded.file, text, error: loaded.ok ? null : loaded.error.message, warnings: warnings.map(({ line, column, message }) => ({ line, column, message })) };
      },
      async explain(_p, input) {
        const w = worker(input.workerId);
        const base = input.sessionId ? session(input.sessionId) : { id: `explain-${w.id}`, workerId: w.id, agent: "general", model: s.defaultModel, mode: "default" as const, parentId: null, createdAt: now(), status: "idle" as const };
        const decision = s.gate.evaluate({ ...base, mode: input.mode ?? base.mode }, { tool: input.tool, args: input.args });
        return { decision, suggestedPatterns: suggestPatterns(decision) };
      },
    }),
  };
}
