import { evaluate, isToolGlob, loadShellParser, overbroadPattern, Ruleset, suggestPatterns, toolKeyMatches, type Decision, type EvaluationContext, type Rule, type ToolCall } from "@gatehouse/policy";
import { GatehouseError } from "./errors.js";
import type { ApprovalOutcome, ApprovalRequired, ApproveInput, BatchContext, DenyInput, Guard, Presentation, SessionInfo } from "@gatehouse/protocol";
import os from "node:os";
import { nanoid } from "nanoid";
import type { Log } from "@gatehouse/log";
import type { EventHub } from "./event-hub.js";
import type { Store } from "./store.js";
import type { WorkerPermissions } from "./worker-permissions.js";
import type { WorkerRegistry } from "./worker-registry.js";

export type Scope = "once" | "session" | "always";

const FILE_TOOLS: ReadonlySet<string> = new Set(["read_file", "write_file", "edit_file"]);

export interface Resolution {
  outcome: ApprovalOutcome;
  scope: Scope | null;
  feedback: string | null;
  /** A hard deny: the rest of the batch is rejected and the turn ends. */
  hard: boolean;
  by: string | null;
}

interface Pending {
  event: ApprovalRequired;
  call: ToolCall;
  session: SessionInfo;
  settle: (r: Resolution) => void;
  timer: NodeJS.Timeout | undefined;
}

export interface GateOptions {
  store: Store;
  hub: EventHub;
  permissions: WorkerPermissions;
  registry: WorkerRegistry;
  protectedPaths: string[];
  /** A pending approval resolves as timed out after this long; none when undefined. */
  approvalTimeoutMs?: number | undefined;
  present: (session: SessionInfo, call: ToolCall, whole?: boolean) => Promise<Presentation | null>;
  /** The session's agent layer (DESIGN §2.3); undefined for a session without one. */
  agentLayer: (session: SessionInfo) => Ruleset | undefined;
  log: Log;
}

/** Decides every tool call, holds the ones that ask, and applies people's answers (DESIGN §2.6). */
export class ApprovalGate {
  private readonly pending = new Map<string, Pending>();
  private readonly runtime = new Map<string, Ruleset>();
  private readonly invalidSeen = new Map<string, string>();

  constructor(private readonly o: GateOptions) {}

  static async ready(): Promise<void> {
    await loadShellParser();
  }

  context(session: SessionInfo, tool: string): EvaluationContext | Decision {
    const rules = this.o.permissions.load(session.workerId);
    if (!rules.ok) return this.invalidRules(session, tool, rules.error);
    this.invalidSeen.delete(session.id);
    return this.contextWith(session, tool, rules.ruleset);
  }

  private contextWith(session: SessionInfo, tool: string, ruleset: Ruleset): EvaluationContext {
    const worker = this.o.registry.get(session.workerId);
    const tier = worker?.tools.find((t) => t.name === tool)?.tier;
    return {
      layers: { agent: this.o.agentLayer(session), static: ruleset, runtime: this.runtime.get(session.id) },
      cwd: worker?.workDir ?? "/",
      home: os.homedir(),
      mode: session.mode,
      ...(tier ? { tier } : {}),
      protectedPaths: this.o.protectedPaths,
    };
  }

  evaluate(session: SessionInfo, call: ToolCall): Decision {
    const ctx = this.context(session, call.tool);
    if (!("action" in ctx)) return evaluate(call, ctx);
    const veto = evaluate(call, this.contextWith(session, call.tool, Ruleset.empty));
    return veto.layer === "agent" && veto.ruleAction === "deny" ? veto : ctx;
  }

  /** A rules file that does not load: the gate asks (strict mode: denies) and says where the problem is. */
  private invalidRules(session: SessionInfo, tool: string, error: { file: string; line: number; column: number; detail: string; message: string }): Decision {
    if (this.invalidSeen.get(session.id) !== error.message) {
      this.invalidSeen.set(session.id, error.message);
      this.o.hub.publish({ type: "permissions_invalid", sessionId: session.id, at: new Date().toISOString(), workerId: session.workerId, file: error.file, line: error.line, column: error.column, message: error.detail });
    }
    const action = session.mode === "strict" ? "deny" : "ask";
    return { action, tool, layer: null, rule: null, pattern: null, subject: tool, reason: `the permissions file is invalid (${error.message}); every call asks until it is fixed`, tier: "exec", mode: session.mode, ruleAction: "ask", critical: null, subcommands: [] };
  }

  /** What a person will see for a call that asks; null when it cannot be shown. */
  presentation(session: SessionInfo, call: ToolCall): Promise<Presentation | null> {
    return this.o.present(session, call).catch((err: unknown) => this.unpresentable(err, session, call));
  }

  /** A pending approval's presentation, whole; undefined when the approval is not pending. */
  async view(sessionId: string, approvalId: string): Promise<Presentation | null | undefined> {
    const p = this.pending.get(approvalId);
    if (!p || p.session.id !== sessionId) return undefined;
    return this.o.present(p.session, p.call, true).catch((err: unknown) => this.unpresentable(err, p.session, p.call));
  }

  /** A presentation that failed (the worker could not read the file, say): the person sees none, the log says why. */
  private unpresentable(err: unknown, session: SessionInfo, call: ToolCall): null {
    this.o.log.warn("could not prepare what the person sees for an approval", { err, sessionId: session.id, tool: call.tool });
    return null;
  }

  /** Holds a call for a person's answer; the promise settles with the answer. */
  raise(session: SessionInfo, callId: string, call: ToolCall, decision: Decision, batch: BatchContext, presentation: Presentation | null): { approvalId: string; settled: Promise<Resolution> } {
    const approvalId = nanoid(21);
    const patterns = suggestPatterns(decision);
    const event: ApprovalRequired = {
      type: "tool_approval_required", approvalId, toolName: call.tool, arguments: JSON.stringify(call.args), sessionId: session.id,
      at: new Date().toISOString(), callId, tier: decision.tier, decision, reason: decision.reason,
      suggestedPattern: patterns[0] ?? "", suggestedPatterns: patterns, batch,
      presentation,
    };
    let settle!: (r: Resolution) => void;
    const settled = new Promise<Resolution>((resolve) => (settle = resolve));
    const timeout = this.o.approvalTimeoutMs;
    const timer = timeout ? setTimeout(() => this.finish(approvalId, { outcome: "timed_out", scope: null, feedback: null, hard: false, by: null }), timeout) : undefined;
    this.pending.set(approvalId, { event, call, session, settle, timer });
    const stored = this.o.hub.publish(event);
    this.o.store.putPending(event, stored.id);
    return { approvalId, settled };
  }

  /** Removes and settles a pending approval; false when it was not pending (exactly one answer applies). */
  private finish(approvalId: string, r: Resolution & { pattern?: string | null }): Pending | undefined {
    const p = this.pending.get(approvalId);
    if (!p) return undefined;
    this.pending.delete(approvalId);
    if (p.timer) clearTimeout(p.timer);
    this.o.store.deletePending(approvalId);
    this.o.hub.publish({ type: "tool_approval_resolved", sessionId: p.session.id, at: new Date().toISOString(), approvalId, callId: p.event.callId, outcome: r.outcome, by: r.by, scope: r.scope, pattern: r.pattern ?? null, feedback: r.feedback });
    p.settle(r);
    return p;
  }

  async approve(by: string, input: ApproveInput): Promise<boolean> {
    const p = this.pending.get(input.approvalId);
    if (!p || p.session.id !== input.sessionId) return false;
    const scope: Scope = input.scope ?? (input.always ? "always" : "once");
    const patterns = input.patterns ?? (input.pattern ? [input.pattern] : p.event.suggestedPatterns);
    if (scope !== "once") refuseToSave(p.event.decision.critical, patterns);
    this.finish(input.approvalId, { outcome: "approved", scope, feedback: null, hard: false, by, pattern: patterns.join(", ") });
    if (scope === "once") return true;
    this.addRuntimeRules(p.session.id, p.call.tool, patterns);
    if (scope === "always") await this.saveAlways(p.session, p.call.tool, patterns, by);
    this.recheck(p.session.id);
    return true;
  }

  /**
   * Appends "always" rules to the permissions file. When the file cannot take them (invalid, gone,
   * not a regular file) the answer still holds for the session and every client is told why the
   * rule was not saved.
   */
  private async saveAlways(session: SessionInfo, tool: string, patterns: string[], by: string): Promise<void> {
    try {
      for (const pattern of patterns) await this.o.permissions.append(session.workerId, tool, pattern, `by ${by} ${new Date().toISOString()}`);
    } catch (err) {
      const file = this.o.permissions.file(session.workerId);
      const detail = `the approved rule was kept for this session only; it could not be saved: ${(err as Error).message}`;
      this.o.hub.publish({ type: "permissions_invalid", sessionId: session.id, at: new Date().toISOString(), workerId: session.workerId, file, line: 1, column: 1, message: detail });
    }
  }

  deny(by: string, input: DenyInput): boolean {
    const p = this.pending.get(input.approvalId);
    if (!p || p.session.id !== input.sessionId) return false;
    return this.finish(input.approvalId, { outcome: "denied", scope: null, feedback: input.feedback ?? null, hard: input.mode === "hard", by }) !== undefined;
  }

  /** Cancels one pending approval (its call will not run: an earlier call of its batch was denied hard). */
  cancel(approvalId: string, by: string | null): void {
    this.finish(approvalId, { outcome: "cancelled", scope: null, feedback: null, hard: false, by });
  }

  /** Cancels every pending approval of a session (abort, worker lost). */
  cancelSession(sessionId: string, by: string | null): void {
    for (const [id, p] of this.pending) {
      if (p.session.id === sessionId) this.finish(id, { outcome: "cancelled", scope: null, feedback: null, hard: false, by });
    }
  }

  /** Re-evaluates the session's pending approvals; those that now allow resolve by themselves. */
  recheck(sessionId: string): void {
    for (const [id, p] of [...this.pending]) {
      if (p.session.id !== sessionId) continue;
      const session = this.o.store.getSession(sessionId) ?? p.session;
      if (this.evaluate(session, p.call).action === "allow") {
        this.finish(id, { outcome: "approved", scope: null, feedback: null, hard: false, by: "cascade" });
      }
    }
  }

  private addRuntimeRules(sessionId: string, tool: string, patterns: string[]): void {
    const existing = this.runtime.get(sessionId)?.rules ?? [];
    const added: Rule[] = patterns.map((pattern) => ({ tool, pattern, action: "allow", origin: "approval", source: { file: `session ${sessionId}` } }));
    this.runtime.set(sessionId, new Ruleset([...existing, ...added]));
  }

  /** The file-tool rules of every layer and the protected paths, for the worker's real-path re-check. */
  guard(session: SessionInfo): Guard {
    const rules = this.o.permissions.load(session.workerId);
    // A glob key (`*_file`) reaches the worker as one rule for each file tool it covers.
    const toolsOf = (key: string) => (key === "*" || FILE_TOOLS.has(key) ? [key] : isToolGlob(key) ? [...FILE_TOOLS].filter((t) => toolKeyMatches(key, t)) : []);
    const pick = (set: Ruleset | undefined) =>
      (set?.rules ?? []).flatMap((r) => toolsOf(r.tool).map((tool) => ({ tool, pattern: r.pattern, action: r.action, origin: r.origin })));
    const agent = this.o.agentLayer(session);
    return { agent: agent ? pick(agent) : null, static: rules.ok ? pick(rules.ruleset) : [], runtime: pick(this.runtime.get(session.id)), protectedPaths: this.o.protectedPaths };
  }

  /** Drops the runtime rules of a session that has ended for good (a subagent's, when its task returns). */
  forget(sessionId: string): void {
    this.runtime.delete(sessionId);
    this.invalidSeen.delete(sessionId);
  }

  pendingCount(): number {
    return this.pending.size;
  }

  close(): void {
    for (const p of this.pending.values()) if (p.timer) clearTimeout(p.timer);
  }
}

/** What an "always" or "session" answer may save: nothing for a critical call, never a pattern that matches everything. */
function refuseToSave(critical: string | null, patterns: readonly string[]): void {
  if (critical) throw new GatehouseError("REFUSED", `this call matched a critical pattern (${critical}); it can only be approved once`);
  if (patterns.length === 0) throw new GatehouseError("REFUSED", "this call offers no pattern to save; it can only be approved once");
  for (const pattern of patterns) {
    const why = overbroadPattern(pattern);
    if (why) throw new GatehouseError("REFUSED", `the pattern ${JSON.stringify(pattern)} is never saved: ${why}`);
  }
}
