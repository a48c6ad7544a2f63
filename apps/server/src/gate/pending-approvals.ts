import { suggestPatterns, type Decision, type ToolCall } from "@gatehouse/policy";
import type { ApprovalRequired, BatchContext, GatehouseEvent, Presentation, SessionInfo } from "@gatehouse/protocol";
import { nanoid } from "nanoid";
import { approvalDigest } from "./approval-digest.js";
import type { EventHub } from "../store/index.js";
import type { PendingRecord, Store } from "../store/index.js";
import { untilStored } from "../store/index.js";
import { silentLog, type Log } from "../log.js";
import type { Resolution } from "../store/index.js";

export type { Scope } from "@gatehouse/policy";
import { now } from "../clock.js";

export type { Resolution } from "../store/index.js";

export interface Pending {
  event: ApprovalRequired;
  call: ToolCall;
  session: SessionInfo;
  settle: (r: Resolution) => void;
  timer: NodeJS.Timeout | undefined;
}

/** Calls held for a person's answer: raised as events, kept in the store, settled exactly once (the store's take decides who answered). */
export class PendingApprovals {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly store: Store,
    private readonly hub: EventHub,
    /** A pending approval resolves as timed out after this long; never when undefined. */
    private readonly timeoutMs: number | undefined,
    private readonly log: Log = silentLog,
  ) {}

  /** Holds a call: the event is stored and the approval recorded before any client sees it; the promise settles with the answer. */
  async raise(
    session: SessionInfo,
    callId: string,
    call: ToolCall,
    decision: Decision,
    batch: BatchContext,
    presentation: Presentation | null,
    editable = false,
  ): Promise<{ approvalId: string; settled: Promise<Resolution> }> {
    const approvalId = nanoid(21);
    const patterns = suggestPatterns(decision);
    const event: ApprovalRequired = {
      type: "tool_approval_required",
      approvalId,
      toolName: call.tool,
      arguments: JSON.stringify(call.args),
      sessionId: session.id,
      at: now(),
      callId,
      tier: decision.tier,
      decision,
      reason: decision.reason,
      suggestedPattern: patterns[0] ?? "",
      suggestedPatterns: patterns,
      batch,
      presentation,
      digest: approvalDigest(call, presentation),
      editable,
    };
    let settle!: (r: Resolution) => void;
    const settled = new Promise<Resolution>((resolve) => (settle = resolve));
    this.pending.set(approvalId, { event, call, session, settle, timer: undefined });
    await this.hub.publish(event, (stored) => this.store.putPending({ event, eventId: stored.id }));
    this.startTimer(approvalId);
    return { approvalId, settled };
  }

  /**
   * Holds again a call whose approval another process raised and could not see through (it
   * restarted, or was a server instance that stopped): the approval stays the one clients were shown.
   */
  adopt(record: PendingRecord, session: SessionInfo): { approvalId: string; settled: Promise<Resolution> } {
    const { event } = record;
    let settle!: (r: Resolution) => void;
    const settled = new Promise<Resolution>((resolve) => (settle = resolve));
    const call: ToolCall = { tool: event.toolName, args: JSON.parse(event.arguments) as ToolCall["args"] };
    this.pending.set(event.approvalId, { event, call, session, settle, timer: undefined });
    this.startTimer(event.approvalId);
    return { approvalId: event.approvalId, settled };
  }

  /** The time-out counts from when the approval was raised, whichever process raised it. */
  private startTimer(approvalId: string): void {
    const p = this.pending.get(approvalId);
    if (!p || !this.timeoutMs) return;
    const left = Math.max(0, Date.parse(p.event.at) + this.timeoutMs - Date.now());
    const timedOut: Resolution = { outcome: "timed_out", scope: null, feedback: null, hard: false, by: null };
    // A store that is away when the time is up delays the time-out, never drops it.
    p.timer = setTimeout(() => void untilStored(() => this.settle(approvalId, timedOut), this.log, `the time-out of approval ${approvalId}`), left);
  }

  /** The approval when it is pending in this session. */
  get(sessionId: string, approvalId: string): Pending | undefined {
    const p = this.pending.get(approvalId);
    return p?.session.id === sessionId ? p : undefined;
  }

  /** The pending approvals of a session, oldest first. */
  ofSession(sessionId: string): [string, Pending][] {
    return [...this.pending].filter(([, p]) => p.session.id === sessionId);
  }

  /**
   * Removes and settles a pending approval, keeping its answer in the store; undefined when it was
   * not pending (exactly one answer applies). With `release` false the held call is let go later, by the caller, through `settle`.
   */
  async settle(approvalId: string, r: Resolution, release = true): Promise<Pending | undefined> {
    const p = this.pending.get(approvalId);
    if (!p) return undefined;
    if (!(await this.store.takePending(approvalId, r))) return undefined;
    const resolved = this.resolvedEvent(p, approvalId, r);
    this.pending.delete(approvalId);
    if (p.timer) clearTimeout(p.timer);
    // Taken means answered: the answer is kept in the store, and clients hear of it once it can be written.
    await untilStored(() => this.hub.publish(resolved), this.log, `the answer to approval ${approvalId}`);
    if (release) p.settle(r);
    return p;
  }

  private resolvedEvent(p: Pending, approvalId: string, r: Resolution): GatehouseEvent {
    return {
      type: "tool_approval_resolved",
      sessionId: p.session.id,
      at: now(),
      approvalId,
      callId: p.event.callId,
      outcome: r.outcome,
      by: r.by,
      scope: r.scope,
      pattern: r.pattern ?? null,
      feedback: r.feedback,
      ...(r.edited ? { editedArguments: JSON.stringify(r.edited.args) } : {}),
    };
  }

  get size(): number {
    return this.pending.size;
  }

  close(): void {
    for (const p of this.pending.values()) if (p.timer) clearTimeout(p.timer);
  }
}
