import {
  evaluate,
  loadShellParser,
  overbroadPattern,
  Ruleset,
  RulesFileError,
  suggestPatterns,
  type Decision,
  type EvaluationContext,
  type ToolCall,
} from "@gatehouse/policy";
import { refuseChanged } from "./approval-digest.js";
import { refuseEditDecision, refuseMisfit, sameArguments } from "./approval-edit.js";
import type { EditedCall } from "../store/index.js";
import { GatehouseError } from "../errors.js";
import type { ApproveInput, BatchContext, CheckEditInput, DenyInput, Guard, Presentation, SessionInfo } from "@gatehouse/protocol";
import type { Log } from "@gatehouse/log";
import { SessionContexts, type RuleSources } from "./evaluation-context.js";
import type { EventHub } from "../store/index.js";
import { untilStored } from "../store/index.js";
import { InvalidRules } from "./invalid-rules.js";
import { PendingApprovals, type Pending, type Resolution, type Scope } from "./pending-approvals.js";
import { RuntimeRules } from "./runtime-rules.js";
import type { PendingRecord, Store } from "../store/index.js";
import { workerGuard } from "./worker-guard.js";
import { now } from "../clock.js";

export type { Resolution } from "./pending-approvals.js";

export interface GateOptions extends Omit<RuleSources, "runtime"> {
  store: Store;
  hub: EventHub;
  /** A pending approval resolves as timed out after this long; none when undefined. */
  approvalTimeoutMs?: number | undefined;
  present: (session: SessionInfo, call: ToolCall, whole?: boolean) => Promise<Presentation | null>;
  log: Log;
}

const cancelled = (by: string | null): Resolution => ({ outcome: "cancelled", scope: null, feedback: null, hard: false, by });

/**
 * Decides every tool call, holds the ones that ask, and applies people's answers (docs/design.md, "Answers and batches").
 * The jobs are done by the modules it composes: evaluation contexts, invalid-rules notices,
 * pending approvals, runtime rules and the worker's guard.
 */
export class ApprovalGate {
  private readonly runtime: RuntimeRules;
  private readonly invalid: InvalidRules;
  private readonly contexts: SessionContexts;
  private readonly pending: PendingApprovals;
  private readonly sources: RuleSources;

  constructor(private readonly options: GateOptions) {
    this.runtime = new RuntimeRules(options.store);
    this.sources = { ...options, runtime: this.runtime };
    this.invalid = new InvalidRules(options.hub);
    this.contexts = new SessionContexts(this.sources, this.invalid);
    this.pending = new PendingApprovals(options.store, options.hub, options.approvalTimeoutMs, options.log);
  }

  static async ready(): Promise<void> {
    await loadShellParser();
  }

  /** Loads the runtime rules the store kept (from before a restart). */
  async load(): Promise<void> {
    await this.runtime.load();
  }

  /**
   * The decision for a call; with a rules file that does not load, it asks (see InvalidRules), unless it is denied without the file.
   * With `resolveRealPath` (the worker's real paths), paths are judged where they really lead too.
   */
  evaluate(session: SessionInfo, call: ToolCall, resolveRealPath?: (absolute: string) => string): Decision {
    return this.decide(session, call, true, resolveRealPath);
  }

  /** What a call's decision depends on besides the call (see SessionContexts.inputs): equal inputs, equal decisions. */
  inputs(session: SessionInfo, call: ToolCall): readonly unknown[] | null {
    return this.contexts.inputs(session, call.tool);
  }

  /** The decision a call would get, for a query: the same as `evaluate`, with nothing told or stored. */
  explain(session: SessionInfo, call: ToolCall): Decision {
    return this.decide(session, call, false);
  }

  private decide(session: SessionInfo, call: ToolCall, tell: boolean, resolveRealPath?: (absolute: string) => string): Decision {
    const on = (ctx: EvaluationContext): EvaluationContext => (resolveRealPath ? { ...ctx, resolveRealPath } : ctx);
    const ctx = this.contexts.of(session, call.tool);
    if (!(ctx instanceof RulesFileError)) return evaluate(call, on(ctx));
    return this.invalid.decision(session, evaluate(call, on(this.contexts.withRules(session, call.tool, Ruleset.empty))), ctx, tell);
  }

  /** What a person will see for a call that asks; null when it cannot be shown. */
  presentation(session: SessionInfo, call: ToolCall): Promise<Presentation | null> {
    return this.options.present(session, call).catch((err: unknown) => this.unpresentable(err, session, call));
  }

  /** A pending approval's presentation, whole; undefined when the approval is not pending. */
  async view(sessionId: string, approvalId: string): Promise<Presentation | null | undefined> {
    const p = this.pending.get(sessionId, approvalId);
    if (!p) return undefined;
    return this.options.present(p.session, p.call, true).catch((err: unknown) => this.unpresentable(err, p.session, p.call));
  }

  /** A presentation that failed (the worker could not read the file, say): the person sees none, the log says why. */
  private unpresentable(err: unknown, session: SessionInfo, call: ToolCall): null {
    this.options.log.warn("could not prepare what the person sees for an approval", { err, sessionId: session.id, tool: call.tool });
    return null;
  }

  /** Holds a call for a person's answer; the promise settles with the answer. Only an `editable` call's answer may edit its arguments. */
  raise(
    session: SessionInfo,
    callId: string,
    call: ToolCall,
    decision: Decision,
    batch: BatchContext,
    presentation: Presentation | null,
    editable = false,
  ): Promise<{ approvalId: string; settled: Promise<Resolution> }> {
    return this.pending.raise(session, callId, call, decision, batch, presentation, editable);
  }

  /** Holds again a call another process raised (see PendingApprovals.adopt), with its session's runtime rules as the store has them now. */
  async adopt(record: PendingRecord, session: SessionInfo): Promise<{ approvalId: string; settled: Promise<Resolution> }> {
    await this.runtime.load(session.id);
    return this.pending.adopt(record, session);
  }

  /** Reads a session's runtime rules again: another process may have added some. */
  reloadRules(sessionId: string): Promise<void> {
    return this.runtime.load(sessionId);
  }

  async approve(by: string, input: ApproveInput): Promise<boolean> {
    const p = this.pending.get(input.sessionId, input.approvalId);
    if (!p) return this.unapplied(input);
    refuseChanged(input.digest, p.call, p.event.presentation);
    const edited = input.editedArguments ? await this.editedCall(p, input.editedArguments, input.confirmCritical === true) : undefined;
    const call = edited ? { tool: p.call.tool, args: edited.args } : p.call;
    const decision = edited?.decision ?? p.event.decision;
    const scope: Scope = input.scope ?? (input.always ? "always" : "once");
    const patterns = input.patterns ?? (input.pattern ? [input.pattern] : edited ? suggestPatterns(decision) : p.event.suggestedPatterns);
    if (scope !== "once") refuseToSave(decision.critical, patterns, call.tool);
    const resolution: Resolution = { outcome: "approved", scope, feedback: null, hard: false, by, pattern: patterns.join(", "), ...(edited && { edited }) };
    // The call is let go only once its rule is in place, so what it leads to already sees the rule.
    const claimed = await this.pending.settle(input.approvalId, resolution, false);
    if (!claimed) return this.unapplied(input);
    // Taken means answered: whatever fails from here, the held call goes on as answered (else it
    // waited for an approval no one could answer again), and its rule is written once the store takes it.
    try {
      if (scope !== "once")
        await untilStored(() => this.runtime.allow(p.session.id, call.tool, patterns), this.options.log, `the session rule of approval ${input.approvalId}`);
      if (scope === "always") await this.saveAlways(p.session, call.tool, patterns, by);
    } finally {
      claimed.settle(resolution);
    }
    if (scope !== "once") await this.recheck(p.session.id);
    return true;
  }

  /**
   * What approving with these edited arguments would run, checked as `approve` checks it, without
   * answering; a critical call is not refused here (its decision says it is critical). Undefined
   * when the approval is not pending.
   */
  async checkEdit(input: CheckEditInput): Promise<EditedCall | undefined> {
    const p = this.pending.get(input.sessionId, input.approvalId);
    if (!p) return undefined;
    const args = input.editedArguments;
    return (await this.editedCall(p, args, true)) ?? { args, decision: p.event.decision, shown: p.event.presentation };
  }

  /**
   * The edited call checked as a call of its own: against the tool's schema, then decided by the
   * rules, floors and mode as the session is now. Undefined when the edit changed nothing.
   */
  private async editedCall(p: Pending, args: Record<string, unknown>, confirmed: boolean): Promise<EditedCall | undefined> {
    if (sameArguments(args, p.call.args)) return undefined;
    if (p.event.editable !== true) throw new GatehouseError("INVALID", `this ${p.call.tool} call cannot be edited, only approved or denied as it is`);
    const call = { tool: p.call.tool, args };
    refuseMisfit(
      call,
      this.options.registry.get(p.session.workerId)?.tools.find((t) => t.name === call.tool),
    );
    const session = (await this.options.store.getSession(p.session.id)) ?? p.session;
    const decision = this.evaluate(session, call);
    refuseEditDecision(call.tool, decision, confirmed);
    return { args, decision, shown: await this.presentation(session, call) };
  }

  /**
   * An answer that came too late. An edit that does not apply, or a plain approval that lost to
   * an edit, is an error: the person must learn that what runs is not what they answered.
   */
  private async unapplied(input: ApproveInput): Promise<false> {
    const kept = (await this.options.store.answered(input.sessionId)).find((r) => r.event.approvalId === input.approvalId)?.answer;
    if (!input.editedArguments && !kept?.edited) return false;
    const why = kept
      ? `was already answered (${kept.outcome} by ${kept.by ?? "nobody"}${kept.edited ? ", with edited arguments" : ""})`
      : "is not pending (answered, cancelled, timed out or unknown)";
    throw new GatehouseError("CONFLICT", `approval ${input.approvalId} ${why}: this answer was not applied`);
  }

  /**
   * Appends "always" rules to the permissions file. When the file cannot take them (invalid, gone,
   * not a regular file) the answer still holds for the session and every client is told why the
   * rule was not saved.
   */
  private async saveAlways(session: SessionInfo, tool: string, patterns: string[], by: string): Promise<void> {
    try {
      for (const pattern of patterns) await this.options.permissions.append(session.workerId, tool, pattern, `by ${by} ${now()}`);
    } catch (err) {
      const file = this.options.permissions.file(session.workerId);
      const detail = `the approved rule was kept for this session only; it could not be saved: ${(err as Error).message}`;
      this.options.log.warn("an always rule could not be saved", { file, err });
      await this.options.hub.publish({
        type: "permissions_invalid",
        sessionId: session.id,
        at: now(),
        workerId: session.workerId,
        file,
        line: 1,
        column: 1,
        message: detail,
      });
    }
  }

  async deny(by: string, input: DenyInput): Promise<boolean> {
    if (!this.pending.get(input.sessionId, input.approvalId)) return false;
    return (
      (await this.pending.settle(input.approvalId, { outcome: "denied", scope: null, feedback: input.feedback ?? null, hard: input.mode === "hard", by })) !==
      undefined
    );
  }

  /** Cancels one pending approval (its call will not run: an earlier call of its batch was denied hard). */
  async cancel(approvalId: string, by: string | null): Promise<void> {
    await this.pending.settle(approvalId, cancelled(by));
  }

  /** Cancels every pending approval of a session (abort, worker lost). */
  async cancelSession(sessionId: string, by: string | null): Promise<void> {
    await Promise.all(this.pending.ofSession(sessionId).map(([id]) => this.pending.settle(id, cancelled(by))));
  }

  /** Re-evaluates the session's pending approvals; those that now allow resolve by themselves. */
  async recheck(sessionId: string): Promise<void> {
    const pending = this.pending.ofSession(sessionId);
    if (pending.length === 0) return;
    const session = await this.options.store.getSession(sessionId);
    for (const [id, p] of pending) {
      if (this.evaluate(session ?? p.session, p.call).action === "allow")
        await this.pending.settle(id, { outcome: "approved", scope: null, feedback: null, hard: false, by: "cascade" });
    }
  }

  /** The file-tool rules of every layer and the protected paths, for the worker's real-path re-check. */
  guard(session: SessionInfo): Guard {
    return workerGuard(session, this.sources);
  }

  /** Drops the runtime rules of a session that has ended for good (a subagent's, when its task returns). */
  async forget(sessionId: string): Promise<void> {
    await this.runtime.forget(sessionId);
    this.invalid.fixed(sessionId);
  }

  pendingCount(): number {
    return this.pending.size;
  }

  close(): void {
    this.pending.close();
    this.options.permissions.close();
  }
}

/** What an "always" or "session" answer may save: nothing for a critical call, never a pattern that matches everything. */
function refuseToSave(critical: string | null, patterns: readonly string[], tool: string): void {
  if (critical) throw new GatehouseError("REFUSED", `this call matched a critical pattern (${critical}); it can only be approved once`);
  if (patterns.length === 0) throw new GatehouseError("REFUSED", "this call offers no pattern to save; it can only be approved once");
  for (const pattern of patterns) {
    const why = overbroadPattern(pattern, tool);
    if (why) throw new GatehouseError("REFUSED", `the pattern ${JSON.stringify(pattern)} is never saved: ${why}`);
  }
}
