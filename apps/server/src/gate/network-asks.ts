import { NETWORK_TOOL, type ToolCall } from "@gatehouse/policy";
import type { NetworkAskMessage, NetworkDecidedMessage, SessionInfo } from "@gatehouse/protocol";
import type { ApprovalGate, Resolution } from "./approval-gate.js";
import { auditEntry, ruleLabel } from "../store/index.js";
import type { Log } from "../log.js";
import type { Store } from "../store/index.js";
import type { WorkerRegistry } from "../workers/index.js";

/** How a network ask ends for the program that connects: through, or refused for the reason it is told. */
export interface NetworkAnswer {
  allow: boolean;
  reason: string;
}

export interface NetworkAsksOptions {
  gate: ApprovalGate;
  store: Store;
  registry: WorkerRegistry;
  log: Log;
}

const ONE_CALL = { index: 0, total: 1, remaining: [] };

function refusal(label: string, r: Resolution): string {
  if (r.outcome === "timed_out") return `${label} was not answered in time`;
  if (r.outcome === "cancelled") return `the question about ${label} was cancelled${r.by ? ` (${r.by})` : ""}`;
  return `${label} was denied${r.by ? ` by ${r.by}` : ""}${r.feedback ? `: ${r.feedback}` : ""}`;
}

/**
 * Connections that a running command makes and its worker's proxy asks about: decided again under
 * the session's rules and mode as they are now, and held as approvals of the call's session
 * (tool `network`, arguments host, port and command) until a person answers, with audit entries
 * like every call's.
 */
export class NetworkAsks {
  /** Approvals held for asks, by worker and ask id, so that a worker's cancel reaches them. */
  private readonly held = new Map<string, string>();

  constructor(private readonly options: NetworkAsksOptions) {}

  async ask(workerId: string, message: NetworkAskMessage): Promise<NetworkAnswer> {
    const label = `${message.host}:${message.port}`;
    const found = await this.connecting(workerId, message);
    if (!found) return { allow: false, reason: `${label}: the call that connects is not running on this server` };
    const { session, call } = found;
    try {
      return await this.decide(workerId, message.askId, session, call, label);
    } catch (err) {
      this.options.log.warn("a network ask failed", { err, sessionId: session.id });
      return { allow: false, reason: `${label}: the server could not ask about it (${(err as Error).message})` };
    }
  }

  private async decide(workerId: string, askId: string, session: SessionInfo, call: ToolCall, label: string): Promise<NetworkAnswer> {
    const { gate } = this.options;
    const decision = gate.evaluate(session, call);
    await this.audit(session, call, decision.action, decision.reason, ruleLabel(decision));
    if (decision.action !== "ask") return { allow: decision.action === "allow", reason: decision.reason };
    const { approvalId, settled } = await gate.raise(session, `network-${askId}`, call, decision, ONE_CALL, await gate.presentation(session, call));
    const key = `${workerId}\n${askId}`;
    this.held.set(key, approvalId);
    const r = await settled.finally(() => this.held.delete(key));
    await this.audit(session, call, r.outcome, `answered by ${r.by ?? "nobody"}`, null, r.by ?? undefined);
    return r.outcome === "approved" ? { allow: true, reason: `approved by ${r.by ?? "a person"}` } : { allow: false, reason: refusal(label, r) };
  }

  /** A connection the worker's rules allowed or denied without asking: audited like any decision. */
  async decided(workerId: string, message: NetworkDecidedMessage): Promise<void> {
    const found = await this.connecting(workerId, message);
    if (!found) return;
    const { session, call } = found;
    await this.audit(session, call, message.allowed ? "allow" : "deny", message.reason, null).catch((err: unknown) =>
      this.options.log.warn("a network decision could not be audited", { err, sessionId: session.id }),
    );
  }

  /** The worker gave the connection up (its command ended): the question is withdrawn. */
  async cancel(workerId: string, askId: string): Promise<void> {
    const approvalId = this.held.get(`${workerId}\n${askId}`);
    if (approvalId) await this.options.gate.cancel(approvalId, "the command ended");
  }

  /** The session of the running call whose command connects, and the connection as a `network` call of it. */
  private async connecting(workerId: string, m: NetworkDecidedMessage | NetworkAskMessage): Promise<{ session: SessionInfo; call: ToolCall } | null> {
    const sessionId = this.options.registry.sessionOf(workerId, m.requestId);
    const session = sessionId ? await this.options.store.getSession(sessionId) : null;
    return session ? { session, call: { tool: NETWORK_TOOL, args: { host: m.host, port: m.port, command: m.command } } } : null;
  }

  private audit(session: SessionInfo, call: ToolCall, action: string, reason: string, rule: string | null, by?: string): Promise<void> {
    return this.options.store.appendAudit(auditEntry(session, call, action, reason, rule, by));
  }
}
