import type { Decision } from "@gatehouse/policy";
import {
  toolOutputText,
  type AssumedPaths,
  type BatchContext,
  type GatehouseEvent,
  type Message,
  type SessionInfo,
  type ToolDescriptor,
  type Usage,
} from "@gatehouse/protocol";
import type { Log } from "@gatehouse/log";
import { nanoid } from "nanoid";
import type { ApprovalGate, Resolution } from "../gate/index.js";
import type { Coverage } from "../gate/index.js";
import { GatehouseError } from "../errors.js";
import type { EventHub } from "../store/index.js";
import { digest } from "./context-checkpoint.js";
import { RecentMessages } from "./recent-messages.js";
import { ModelContext, type ContextSettings } from "./model-context.js";
import type { ModelToolCall, Provider } from "./providers/provider.js";
import type { AnsweredRecord, Store } from "../store/index.js";
import { Subagents } from "./subagents.js";
import { patchSession } from "./session-updates.js";
import { TASK_TOOL } from "./task-tool.js";
import { isStoreFailure, storeFailureMessage, untilStored } from "../store/index.js";
import { TextDeltas } from "./text-deltas.js";
import { type CallResult, notRun, ran, rejection, toolMessages } from "./tool-messages.js";
import type { WorkerRegistry } from "../workers/index.js";
import { now } from "../clock.js";
import { RunTimeDecisions, type EarlyDecision, type Raised, type Resolved } from "../gate/index.js";
import { workerRealPaths } from "../gate/index.js";
import { grantedBy } from "../gate/index.js";
import { missingToolDecision, missingToolReason } from "../gate/index.js";
import { auditEntry, ruleLabel } from "../store/index.js";

export interface RunnerOptions {
  store: Store;
  hub: EventHub;
  gate: ApprovalGate;
  registry: WorkerRegistry;
  providerFor: (session: SessionInfo) => Provider;
  /** The tools a session's model is offered: its worker's, and `task` where it may spawn. */
  toolsFor: (session: SessionInfo) => Promise<ToolDescriptor[]>;
  subagents: Subagents;
  maxSteps: number;
  toolTimeoutMs: number;
  maxToolResultChars: number;
  /** When sessions are compacted to fit their model's window; without it, only when a provider refuses a request as too long. */
  context?: ContextSettings;
  systemPrompt: (session: SessionInfo) => string;
  /** Whether this server still runs the session's turns; without it, always (one server). Checked before each step of a turn. */
  stillOwns?: (sessionId: string) => Promise<boolean>;
  /** Resolves once the worker is online, or after a while without it: a turn carried on after a restart waits for it. */
  whenWorkerOnline?: (workerId: string, signal: AbortSignal) => Promise<void>;
  log: Log;
}

/** What one call of a batch has before it runs: its decision (null when invalid), the approval it waits for, or already its result. */
interface Prepared {
  decision: Decision | null;
  approval: { approvalId: string; settled: Promise<Resolution> } | null;
  result?: CallResult;
  /** It had its result before the turn was carried on. */
  done?: boolean;
  /** Its approval was raised, and its decision audited, before the turn was carried on. */
  adopted?: boolean;
  /** What its approval covers. */
  covered?: Coverage | null;
  /** Its decision as the batch was prepared, with what it assumed (RunTimeDecisions.early). */
  early?: EarlyDecision | null;
}

/** How a call of a batch is held before it runs: the approval it waits for, and the batch's results stored so far. */
interface Held {
  approval: Promise<Resolution> | undefined;
  /** Its approval was raised and its decision audited before the turn was carried on. */
  adopted: boolean | undefined;
  /** The results of the batch's earlier calls, still being stored. */
  stored: Promise<unknown>;
  /** What its approval covers. */
  covered: Coverage | null | undefined;
  /** Its decision as the batch was prepared. */
  early: EarlyDecision | null | undefined;
  /** Where it stands in its batch, for an ask raised again (made only then). */
  batch: () => BatchContext;
}

/** Whether a person may edit a held call's arguments: a subagent's task is started by the server, not a worker's tool, and is not. */
const editable = (call: ModelToolCall): boolean => call.toolName !== TASK_TOOL;

/** How often a call is decided again because its worker found its paths led elsewhere, before it is given up: they are changing as it runs. */
const MAX_MOVES = 4;

/** A call a person edited before approving it: as the model made it, and as it runs. */
interface Edit {
  original: ModelToolCall;
  edited: ModelToolCall;
}

type ToolMessage = Extract<Message, { role: "tool" }>;
type ToolResultEvent = Extract<GatehouseEvent, { type: "tool_result" }>;

/** Another server instance carries the session's turn on: this one leaves it without a word, since every word is the other's to say. */
type Released = "released";

export type TurnEnd = "completed" | "rejected" | "aborted" | "error" | "step_limit";

function addUsage(total: Usage, step: Usage): void {
  if (step.inputTokens !== null) total.inputTokens = (total.inputTokens ?? 0) + step.inputTokens;
  if (step.outputTokens !== null) total.outputTokens = (total.outputTokens ?? 0) + step.outputTokens;
}

/** Runs turns: model -> gate -> worker, over and over until the model stops calling tools. */
export class AgentRunner {
  private readonly running = new Map<string, AbortController>();
  /** Each running turn's messages, read once when the model is first asked and kept up to date by the turn itself (the only writer). */
  private readonly transcripts = new Map<string, Message[]>();
  /** The messages of sessions' last turns, whose objects a turn reading its session back takes where they are the same. */
  private readonly recent = new RecentMessages();
  /** Sessions whose last turn's end waits for the store to come back: no new turn starts before it is recorded. */
  private readonly unrecorded = new Set<string>();
  private readonly runTime: RunTimeDecisions;

  /** What each session's model is sent, compacted to fit its window. */
  private readonly context: ModelContext;

  constructor(private readonly options: RunnerOptions) {
    const { store, hub, log, maxToolResultChars, gate, registry } = options;
    const settings = options.context ?? { compactAt: 1, windowOf: () => undefined, summariserFor: () => digest };
    this.context = new ModelContext({ store, hub, log, maxToolResultChars, ...settings });
    this.runTime = new RunTimeDecisions({
      evaluate: (session, call, resolve) => gate.evaluate(session, call, resolve),
      presentation: (session, call) => gate.presentation(session, call),
      realPaths: workerRealPaths(registry),
      inputs: (session, call) => gate.inputs(session, call),
    });
  }

  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  /** Starts a turn; false when one is already running for the session. */
  async prompt(session: SessionInfo, text: string): Promise<boolean> {
    if (this.running.has(session.id)) return false;
    if (this.unrecorded.has(session.id))
      throw new GatehouseError("BUSY", `the end of session ${session.id}'s last turn is not recorded yet (the store is away); prompt again once it is`);
    const controller = new AbortController();
    this.running.set(session.id, controller);
    try {
      await patchSession(this.options.store, session.id, { status: "running" });
      await this.begin(session, text);
    } catch (err) {
      this.forget(session.id, controller);
      await patchSession(this.options.store, session.id, { status: session.status }).catch(() => undefined);
      throw err;
    }
    void this.play({ ...session, status: "running" }, controller, (usage) => this.turn(session.id, controller.signal, usage));
    return true;
  }

  /** The user's message that starts a turn; a prompt is answered once it is recorded: one the store cannot take is refused with its error, not accepted and lost. */
  private async begin(session: SessionInfo, text: string): Promise<void> {
    await this.addMessage(session.id, { role: "user", text });
    await this.options.hub.publish({ type: "user_message", sessionId: session.id, at: now(), text });
  }

  /**
   * A whole turn, from the prompt to `turn_ended`; a subagent's turn is awaited by its parent's
   * `task` call, which is left too when the subagent's turn is released.
   */
  runTurn(session: SessionInfo, text: string, controller: AbortController): Promise<TurnEnd | Released> {
    return this.play(session, controller, async (usage) => {
      await this.begin(session, text);
      return this.turn(session.id, controller.signal, usage);
    });
  }

  /** Runs a turn's body as the session's running turn, and ends it with `turn_ended` however it goes. */
  private async play(session: SessionInfo, controller: AbortController, body: (usage: Usage) => Promise<TurnEnd | Released>): Promise<TurnEnd | Released> {
    this.running.set(session.id, controller);
    const usage: Usage = { inputTokens: null, outputTokens: null };
    let end: TurnEnd | Released;
    try {
      if (session.status !== "running") await patchSession(this.options.store, session.id, { status: "running" });
      end = await body(usage);
    } catch (err) {
      if (!controller.signal.aborted) {
        const stored = isStoreFailure(err);
        if (stored) this.unrecorded.add(session.id);
        const code = err instanceof GatehouseError ? err.code : stored ? "STORE_UNAVAILABLE" : "INTERNAL";
        const message = stored ? storeFailureMessage(err) : (err as Error).message;
        if (code === "INTERNAL") this.options.log.error("a turn failed", { err, sessionId: session.id });
        else this.options.log.warn("a turn ended with an error", { code, sessionId: session.id, message });
        await this.record(session.id, "a turn's error", () =>
          this.options.hub.publish({ type: "session_error", sessionId: session.id, at: now(), code, message }),
        );
      }
      end = "error";
    }
    if (end === "released") return this.letGo(session, controller);
    this.forget(session.id, controller);
    const reason = controller.signal.aborted ? "aborted" : end;
    await this.record(session.id, "a turn's end", () => this.options.hub.publish({ type: "turn_ended", sessionId: session.id, at: now(), reason, usage }));
    await this.record(session.id, "a turn's answers dropped", () => this.options.store.forgetAnswers(session.id));
    if (!session.parentId) await this.record(session.id, "a session's status", () => patchSession(this.options.store, session.id, { status: "idle" }));
    this.unrecorded.delete(session.id);
    return reason;
  }

  /** A write at the end of a turn: retried until the store takes it, the session taking no prompt meanwhile. */
  private record(sessionId: string, what: string, write: () => Promise<unknown>): Promise<unknown> {
    return untilStored(write, this.options.log, `${what} (session ${sessionId})`, () => this.unrecorded.add(sessionId));
  }

  private forget(sessionId: string, controller: AbortController): void {
    if (this.running.get(sessionId) !== controller) return;
    this.running.delete(sessionId);
    const transcript = this.transcripts.get(sessionId);
    if (transcript) this.recent.keep(sessionId, transcript);
    this.transcripts.delete(sessionId);
  }

  /** Ends a turn another instance took over: nothing is published or stored; a subagent's parent is released with it. */
  private letGo(session: SessionInfo, controller: AbortController): TurnEnd | Released {
    this.forget(session.id, controller);
    if (session.parentId) return "released";
    this.options.log.warn("a turn is left to the server instance that took its session over", { sessionId: session.id });
    return "aborted";
  }

  /** Sessions another server instance took over: a turn of theirs waiting here (for an answer that goes to the other) is forgotten. */
  release(sessionIds: readonly string[]): void {
    for (const id of sessionIds) {
      const controller = this.running.get(id);
      if (controller) this.forget(id, controller);
    }
  }

  /** Whether this instance still runs the session's turn: false once another instance has taken the session over. */
  private async owns(sessionId: string): Promise<boolean> {
    return !this.options.stillOwns || (await this.options.stillOwns(sessionId));
  }

  /**
   * Carries on the turn that another process left unfinished (a server instance that stopped):
   * of the last step's calls, those without a result are settled — a held one waits for its
   * approval again, one that was running is recorded as failed, the rest are decided now — and
   * the turn goes on. False when the session's last turn had ended.
   */
  async resume(sessionId: string): Promise<boolean> {
    if (this.running.has(sessionId)) return false;
    const unfinished = await unfinishedTurn(this.options.store, sessionId);
    if (!unfinished) return false;
    const session = await this.session(sessionId);
    for (const id of (await this.options.subagents.family(sessionId)).slice(1)) await this.closeOrphaned(id);
    const held = new Map((await this.options.store.listPending(sessionId)).map((p) => [p.event.callId, p]));
    const kept = keptAnswers(await this.options.store.answered(sessionId), unfinished.asked);
    const known: (Prepared | undefined)[] = [];
    for (const call of unfinished.calls) {
      const record = held.get(call.callId);
      const answer = kept.get(call.callId);
      if (unfinished.answered.has(call.callId)) known.push({ decision: null, approval: null, done: true });
      else if (record)
        known.push({
          decision: record.event.decision,
          approval: await this.options.gate.adopt(record, session),
          adopted: true,
          covered: { shown: record.event.presentation, leads: null },
        });
      // A call that had started is never run again, whatever answer let it run.
      else if (unfinished.started.has(call.callId)) known.push({ decision: null, approval: null, result: cutShort(call, answer?.answer) });
      else if (answer) known.push(heldAgain(answer));
      else known.push(undefined);
    }
    await this.options.gate.reloadRules(sessionId);
    this.options.log.info("carrying on a turn left unfinished", { sessionId, held: held.size });
    const controller = new AbortController();
    void this.play(session, controller, async (usage) => {
      if (unfinished.completed) return "completed";
      await this.options.whenWorkerOnline?.(session.workerId, controller.signal);
      if (unfinished.calls.length > 0) {
        const outcome = await this.runCalls(session, unfinished.calls, await this.prepare(session, unfinished.calls, known), controller.signal);
        if (outcome !== "continue") return outcome;
      }
      return this.turn(sessionId, controller.signal, usage);
    });
    return true;
  }

  /**
   * A subagent a process that stopped was running: its turn went with that process (the parent's
   * `task` call is failed), so its approvals are cancelled and its turn is ended and closed.
   */
  private async closeOrphaned(sessionId: string): Promise<void> {
    const session = await this.session(sessionId);
    for (const record of await this.options.store.listPending(sessionId)) {
      const { approvalId } = await this.options.gate.adopt(record, session);
      await this.options.gate.cancel(approvalId, null);
    }
    if (session.status !== "running") return;
    const message = "the server running this subagent stopped; its turn cannot be carried on";
    await this.options.hub.publish({ type: "session_error", sessionId, at: now(), code: "ABORTED", message });
    await this.options.hub.publish({ type: "turn_ended", sessionId, at: now(), reason: "aborted", usage: { inputTokens: null, outputTokens: null } });
    await patchSession(this.options.store, sessionId, { status: "closed" });
  }

  /** Stops the model, cancels pending approvals and kills the running tool, in the session and its subagents. */
  async abort(sessionId: string, by: string): Promise<boolean> {
    for (const id of await this.options.subagents.family(sessionId)) await this.options.gate.cancelSession(id, by);
    const controller = this.running.get(sessionId);
    if (!controller) return false;
    controller.abort();
    return true;
  }

  private async transcript(sessionId: string): Promise<Message[]> {
    let found = this.transcripts.get(sessionId);
    if (!found) this.transcripts.set(sessionId, (found = this.recent.reuse(sessionId, await this.options.store.messages(sessionId))));
    return found;
  }

  private async addMessage(sessionId: string, message: Message): Promise<void> {
    await this.options.store.appendMessage(sessionId, message);
    this.transcripts.get(sessionId)?.push(message);
  }

  private async session(id: string): Promise<SessionInfo> {
    const s = await this.options.store.getSession(id);
    if (!s) throw new GatehouseError("NOT_FOUND", `session ${id} does not exist`);
    return s;
  }

  private async turn(sessionId: string, signal: AbortSignal, usage: Usage): Promise<TurnEnd | Released> {
    for (let step = 0; step < this.options.maxSteps; step++) {
      if (!(await this.owns(sessionId))) return "released";
      const session = await this.session(sessionId);
      const deltas = new TextDeltas((text) => this.options.hub.notify({ type: "assistant_text_delta", sessionId, at: now(), text }));
      const response = await this.context
        .respond(session, this.options.providerFor(session), await this.transcript(sessionId), {
          system: this.options.systemPrompt(session),
          tools: await this.options.toolsFor(session),
          signal,
          onText: (text) => deltas.push(text),
        })
        .finally(() => deltas.flush());
      if (signal.aborted) return "aborted";
      addUsage(usage, response.usage);
      const message: Message = {
        role: "assistant",
        text: response.text,
        toolCalls: response.toolCalls.map((c) => ({ callId: c.callId, toolName: c.toolName, arguments: JSON.stringify(c.args) })),
      };
      await this.addMessage(sessionId, message);
      await this.options.hub.publish({ type: "assistant_message", sessionId, at: now(), message, stopReason: response.stopReason, usage: response.usage });
      if (response.toolCalls.length === 0) return "completed";
      const outcome = await this.batch(session, response.toolCalls, signal);
      if (outcome !== "continue") return outcome;
    }
    return "step_limit";
  }

  /** Evaluates the whole batch up front, raises every ask at once, then runs the calls in order. */
  private async batch(session: SessionInfo, calls: ModelToolCall[], signal: AbortSignal): Promise<"continue" | "rejected" | "aborted" | Released> {
    return this.runCalls(session, calls, await this.prepare(session, calls, []), signal);
  }

  /** The decision and the approval of each call of a batch; a call already `known` (an unfinished turn carried on) keeps what it has. */
  private async prepare(session: SessionInfo, calls: ModelToolCall[], known: (Prepared | undefined)[]): Promise<Prepared[]> {
    const fresh = (i: number) => known[i] === undefined;
    const missing = await this.missingTools(session);
    const early = calls.map((c, i) => (!fresh(i) || c.invalid ? null : this.runTime.early(session, { tool: c.toolName, args: c.args })));
    const evaluated = early.map((e) => e?.decision ?? null);
    // A call the rules deny keeps their reason (an agent's veto of `task`, say); any other is denied for want of its tool.
    const lacking = calls.map((c, i) => (evaluated[i] && evaluated[i].action !== "deny" ? missing(c.toolName) : null));
    const decisions = evaluated.map((d, i) => (d && lacking[i] ? missingToolDecision(d, lacking[i]) : d));
    const asks = (i: number) => decisions[i]?.action === "ask";
    const covered = await Promise.all(calls.map((c, i) => (asks(i) ? this.cover(session, c) : null)));
    const approvals = await Promise.all(
      calls.map((c, index) => {
        if (!asks(index)) return null;
        // Audited before it is raised, so that an ask any client has seen is in the audit log whatever happens next.
        return this.auditDecision(session, c, decisions[index]!).then(() =>
          this.options.gate.raise(
            session,
            c.callId,
            { tool: c.toolName, args: c.args },
            decisions[index]!,
            batchOf(calls, index),
            covered[index]!.shown,
            editable(c),
          ),
        );
      }),
    );
    for (const [i, why] of lacking.entries()) if (why) await this.auditDecision(session, calls[i]!, decisions[i]!);
    return calls.map(
      (c, i) =>
        known[i] ?? {
          decision: decisions[i] ?? null,
          approval: approvals[i] ?? null,
          covered: covered[i],
          early: early[i],
          ...(lacking[i] ? { result: notRun("denied", toolMessages.missing(c.toolName, lacking[i])) } : {}),
        },
    );
  }

  /** Why a tool cannot run in the session (see missing-tools.ts); never, while its worker is not known here (its calls wait for it). */
  private async missingTools(session: SessionInfo): Promise<(tool: string) => string | null> {
    if (!this.options.registry.get(session.workerId)) return () => null;
    const offered = new Set((await this.options.toolsFor(session)).map((t) => t.name));
    return (tool) => (offered.has(tool) ? null : missingToolReason(session.workerId, tool));
  }

  /** What a person is shown for a call that asks, and what their approval will cover. */
  private async cover(session: SessionInfo, c: ModelToolCall): Promise<Coverage> {
    const call = { tool: c.toolName, args: c.args };
    return this.runTime.cover(session, call, await this.options.gate.presentation(session, call));
  }

  private async runCalls(
    session: SessionInfo,
    calls: ModelToolCall[],
    prepared: Prepared[],
    signal: AbortSignal,
  ): Promise<"continue" | "rejected" | "aborted" | Released> {
    const cancelRest = async (from: number) => {
      for (const p of prepared.slice(from)) if (p.approval) await this.options.gate.cancel(p.approval.approvalId, null);
    };
    let hardRejected = false;
    // A call's result is stored with the next call's start or before it: the turn waits for it
    // only before that call goes to its worker, and at the end, so one commit serves both.
    let stored: Promise<unknown> = Promise.resolve();
    try {
      for (const [i, call] of calls.entries()) {
        const { decision, approval, result: known, done } = prepared[i]!;
        if (done) continue;
        if (signal.aborted) return await cancelRest(i).then(() => "aborted");
        const started = performance.now();
        if (hardRejected && approval) await this.options.gate.cancel(approval.approvalId, null);
        const result: CallResult | Released = hardRejected
          ? notRun("rejected", toolMessages.batchRejected(call.toolName))
          : (known ??
            (decision
              ? await this.settle(session, call, decision, this.held(calls, i, prepared, stored), signal)
              : notRun("failed", toolMessages.invalid(call.toolName, call.invalid ?? ""))));
        if (result === "released" || !(await this.owns(session.id))) return "released";
        const { hard, ...shown } = result;
        if (hard) hardRejected = true;
        const message: ToolMessage = { role: "tool", callId: call.callId, toolName: call.toolName, content: toolOutputText(shown), isError: !shown.ok };
        const event: ToolResultEvent = {
          type: "tool_result",
          sessionId: session.id,
          at: now(),
          callId: call.callId,
          toolName: call.toolName,
          ...shown,
          elapsedMs: performance.now() - started,
        };
        const recorded = { message, event };
        await this.keptResult(session.id, this.addMessage(session.id, message), recorded);
        stored = Promise.all([stored, this.keptResult(session.id, this.options.hub.publish(event), recorded)]);
        // Awaited before the next call runs and at the end; a failure meanwhile is not an unhandled one.
        stored.catch(() => undefined);
      }
    } finally {
      await stored;
    }
    if (signal.aborted) return "aborted";
    return hardRejected ? "rejected" : "continue";
  }

  /**
   * A write of a call's result. The call has run, so a result the store fails to take is not
   * dropped: once the store is back it is written where it is still missing (a write whose
   * commit was acknowledged on a connection that then broke is not written twice), and only
   * then does the turn end with the store's error. Dropped, the model was later told the call
   * had not run, and ran it again.
   */
  private async keptResult(sessionId: string, write: Promise<unknown>, result: { message: ToolMessage; event: ToolResultEvent }): Promise<void> {
    try {
      await write;
    } catch (err) {
      if (!isStoreFailure(err)) throw err;
      await this.record(sessionId, "a call's result", () => this.writeMissing(sessionId, result));
      throw err;
    }
  }

  /** Writes a result's tool message and event where the session's last step does not hold them yet. */
  private async writeMissing(sessionId: string, { message, event }: { message: ToolMessage; event: ToolResultEvent }): Promise<void> {
    const messages = await this.options.store.messages(sessionId);
    const step = messages.slice(messages.findLastIndex((m) => m.role === "assistant"));
    if (!step.some((m) => m.role === "tool" && m.callId === message.callId)) await this.options.store.appendMessage(sessionId, message);
    const events = (await this.options.store.eventsAfter(0, sessionId)).map((e) => e.event);
    const told = events.slice(events.findLastIndex((e) => e.type === "assistant_message"));
    if (!told.some((e) => e.type === "tool_result" && e.callId === event.callId)) await this.options.hub.publish(event);
  }

  private held(calls: ModelToolCall[], index: number, prepared: Prepared[], stored: Promise<unknown>): Held {
    const own = prepared[index]!;
    return {
      approval: own.approval?.settled,
      adopted: own.adopted,
      stored,
      covered: own.covered,
      early: own.early,
      batch: () => batchOf(calls, index),
    };
  }

  /**
   * A call's way to its run: its decision, its approval, then its decision made again just before
   * it runs (RunTimeDecisions); a stricter one holds, and asks anew or denies.
   */
  private async settle(session: SessionInfo, asked: ModelToolCall, decision: Decision, held: Held, signal: AbortSignal): Promise<CallResult | Released> {
    let call = asked;
    if (!held.adopted && decision.action !== "ask") await this.auditDecision(session, call, decision);
    if (decision.action === "deny") return notRun("denied", toolMessages.denied(call.toolName, decision.reason));
    let { approval, covered } = held;
    let action = decision.action;
    let current = session;
    let edit: Edit | undefined;
    const sent = { started: false };
    for (;;) {
      if (approval) {
        const r = await approval;
        await this.audit(current, call, r.outcome, `answered by ${r.by ?? "nobody"}${r.edited ? ", with edited arguments" : ""}`, null, r.by ?? undefined);
        if (r.outcome !== "approved") return told(rejection(call.toolName, r), edit);
        // A person may have taken a while: the call runs as the session is now.
        current = await this.session(session.id);
        if (r.edited) {
          const original = edit?.original ?? call;
          call = { ...call, args: r.edited.args };
          edit = { original, edited: call };
          action = r.edited.decision.action === "allow" ? "allow" : "ask";
          covered = { shown: r.edited.shown, leads: null };
          await this.auditEdit(current, edit.original, call, r);
        }
      }
      const raised = approval ? { action, approved: covered ?? { shown: null, leads: null } } : { action, approved: null, early: held.early };
      const settled = await this.decideAndRun(current, call, raised, approval ? null : decision, held.stored, signal, sent);
      if (settled === "released") return settled;
      if ("result" in settled) return told(settled.result, edit);
      const { stricter } = settled;
      await this.auditDecision(current, call, stricter);
      if (stricter.action === "deny") return told(notRun("denied", toolMessages.denied(call.toolName, stricter.reason)), edit);
      action = stricter.action;
      covered = await this.cover(current, call);
      const again = { tool: call.toolName, args: call.args };
      approval = (await this.options.gate.raise(current, call.callId, again, stricter, held.batch(), covered.shown, editable(call))).settled;
    }
  }

  /**
   * The call decided again just before it runs and, when that lets it run, run. To a worker that
   * checks assumed paths, the run message carries the paths the decision assumed; where one leads
   * elsewhere, the worker does not run the call and says where they lead, and the call is decided
   * again on that. Other workers are asked where the paths lead first.
   */
  private async decideAndRun(
    session: SessionInfo,
    call: ModelToolCall,
    raised: Raised,
    decision: Decision | null,
    stored: Promise<unknown>,
    signal: AbortSignal,
    sent: { started: boolean },
  ): Promise<{ result: CallResult } | { stricter: Decision } | Released> {
    const asked = { tool: call.toolName, args: call.args };
    if (!this.options.registry.get(session.workerId)?.checksAssumedPaths) {
      const stricter = await this.runTime.check(session, asked, raised, signal);
      if (stricter) return { stricter };
      const result = await this.run(session, call, decision, stored, signal);
      return result === "released" ? result : { result };
    }
    let reported: Map<string, Resolved> | null = null;
    for (let attempt = 0; attempt < MAX_MOVES; attempt++) {
      // The common case, a prepared decision that stands, is answered at once, without an async step.
      const { stricter, assumed } =
        this.runTime.kept(session, asked, raised, reported) ?? (await this.runTime.madeAgain(session, asked, raised, reported, signal));
      if (stricter) return { stricter };
      const result = await this.run(session, call, decision, stored, signal, { assumed, first: !sent.started });
      if (result === "released") return result;
      sent.started = true;
      if (!result.moved) return { result };
      reported = new Map([...(reported ?? []), ...Object.entries(result.moved)]);
    }
    return {
      result: notRun(
        "failed",
        toolMessages.failed(call.toolName, `where its paths lead changed ${MAX_MOVES} times between its decision and its run; it did not run`),
      ),
    };
  }

  private async run(
    session: SessionInfo,
    call: ModelToolCall,
    decision: Decision | null,
    stored: Promise<unknown>,
    signal: AbortSignal,
    { assumed, first }: { assumed: AssumedPaths | null; first: boolean } = { assumed: null, first: true },
  ): Promise<CallResult | Released> {
    if (!(await this.owns(session.id))) return "released";
    // A call sent again after its worker found its paths moved (and perhaps a person approved it then) started once.
    if (first) {
      const start = this.options.hub.publish({
        type: "tool_call_started",
        sessionId: session.id,
        at: now(),
        callId: call.callId,
        toolName: call.toolName,
        arguments: JSON.stringify(call.args),
        decision,
      });
      // The batch's earlier results are stored with this start or before it: both before the call runs.
      await Promise.all([stored, start]);
    }
    if (call.toolName === TASK_TOOL) return this.delegate(session, call, signal);
    // Checked again once the start is stored: a server that takes the session over from here on
    // sees the call started and does not run it again.
    if (!(await this.owns(session.id))) return "released";
    try {
      return ran(
        await this.options.registry.dispatch(
          session.workerId,
          {
            sessionId: session.id,
            toolName: call.toolName,
            args: call.args,
            timeoutMs: this.options.toolTimeoutMs,
            guard: this.options.gate.guard(session),
            granted: grantedBy(decision),
            ...(assumed ? { assumed } : {}),
          },
          signal,
        ),
      );
    } catch (err) {
      if (signal.aborted) return notRun("cancelled", toolMessages.failed(call.toolName, "the turn was aborted"));
      return notRun("failed", toolMessages.failed(call.toolName, (err as Error).message));
    }
  }

  /** The `task` tool: a child session's whole turn, whose last answer is the call's result. */
  private async delegate(parent: SessionInfo, call: ModelToolCall, signal: AbortSignal): Promise<CallResult | Released> {
    const started = await this.options.subagents.start(parent, call.args, nanoid());
    if ("error" in started) return notRun("failed", toolMessages.failed(TASK_TOOL, started.error));
    const child = started.session;
    const controller = new AbortController();
    const stop = () => controller.abort();
    signal.addEventListener("abort", stop, { once: true });
    try {
      const end = await this.runTurn(child, started.prompt, controller);
      return end === "released" ? end : await this.options.subagents.finish(child, end);
    } finally {
      signal.removeEventListener("abort", stop);
      await this.options.gate.forget(child.id);
    }
  }

  /** An approval with edited arguments: the edited call, who edited it, the original and the gate's decision for the edit. */
  private auditEdit(session: SessionInfo, original: ModelToolCall, edited: ModelToolCall, r: Resolution): Promise<void> {
    const decided = r.edited!.decision;
    const reason = `edited by ${r.by ?? "nobody"} before approving; the original arguments: ${JSON.stringify(original.args)}; the edited call decided ${decided.action}: ${decided.reason}`;
    return this.audit(session, edited, "edited", reason, ruleLabel(decided), r.by ?? undefined);
  }

  private auditDecision(session: SessionInfo, call: ModelToolCall, decision: Decision): Promise<void> {
    return this.audit(session, call, decision.action, decision.reason, ruleLabel(decision));
  }

  private audit(session: SessionInfo, call: ModelToolCall, action: string, reason: string, rule: string | null, by?: string): Promise<void> {
    return this.options.store.appendAudit(auditEntry(session, { tool: call.toolName, args: call.args }, action, reason, rule, by));
  }
}

/** A call's result as the model receives it: when the person edited the call, it is told so first, with both arguments. */
function told(result: CallResult, edit: Edit | undefined): CallResult {
  if (!edit) return result;
  return { ...result, output: `${toolMessages.edited(edit.original.toolName, edit.original.args, edit.edited.args)}\n${result.output}` };
}
/** Where a call stands in its batch, as a person sees it with its approval. */
function batchOf(calls: ModelToolCall[], index: number): BatchContext {
  return {
    index,
    total: calls.length,
    remaining: calls.slice(index + 1).map((r) => ({ toolName: r.toolName, arguments: JSON.stringify(r.args) })),
  };
}

/** The answers a person (or a time-out) gave before the restart to the last step's asks, by call id: each holds as given. */
function keptAnswers(records: AnsweredRecord[], asked: Map<string, string>): Map<string, AnsweredRecord> {
  return new Map(records.filter(({ event }) => asked.get(event.callId) === event.approvalId).map((r) => [r.event.callId, r]));
}

/** A call whose answer was kept: it waits for nothing, and goes on as the answer says. */
function heldAgain({ event, answer }: AnsweredRecord): Prepared {
  return {
    decision: event.decision,
    approval: { approvalId: event.approvalId, settled: Promise.resolve(answer) },
    adopted: true,
    covered: { shown: event.presentation, leads: null },
  };
}

/** The result of a call that was running when the server running it stopped; an edited one's model is told of the edit too. */
function cutShort(call: ModelToolCall, answer: Resolution | undefined): CallResult {
  const failed = notRun("failed", toolMessages.failed(call.toolName, "the server running it stopped before the tool finished"));
  return told(failed, answer?.edited && { original: call, edited: { ...call, args: answer.edited.args } });
}

/** The turn a session's log shows begun and not ended: the last step's calls, those answered and those started, and its asks by call id. */
async function unfinishedTurn(
  store: Store,
  sessionId: string,
): Promise<{ calls: ModelToolCall[]; answered: Set<string>; started: Set<string>; asked: Map<string, string>; completed: boolean } | undefined> {
  const events = (await store.eventsAfter(0, sessionId)).map((e) => e.event);
  const begun = events.findLastIndex((e) => e.type === "user_message");
  if (begun < 0 || events.findLastIndex((e) => e.type === "turn_ended") > begun) return undefined;
  const started = new Set(events.slice(begun).flatMap((e) => (e.type === "tool_call_started" ? [e.callId] : [])));
  const stepBegun = Math.max(
    begun,
    events.findLastIndex((e) => e.type === "assistant_message"),
  );
  const asked = new Map(events.slice(stepBegun).flatMap((e) => (e.type === "tool_approval_required" ? [[e.callId, e.approvalId] as const] : [])));
  const messages = await store.messages(sessionId);
  const step = messages.findLastIndex((m) => m.role === "assistant");
  const last = messages[step];
  if (!last || last.role !== "assistant" || messages.findLastIndex((m) => m.role === "user") > step)
    return { calls: [], answered: new Set(), started, asked, completed: false };
  const answered = new Set(messages.slice(step).flatMap((m) => (m.role === "tool" ? [m.callId] : [])));
  const calls = last.toolCalls.map((c): ModelToolCall => {
    try {
      return { callId: c.callId, toolName: c.toolName, args: JSON.parse(c.arguments) as Record<string, unknown> };
    } catch {
      return { callId: c.callId, toolName: c.toolName, args: {}, invalid: "its arguments are not valid JSON" };
    }
  });
  return { calls, answered, started, asked, completed: calls.length === 0 };
}
