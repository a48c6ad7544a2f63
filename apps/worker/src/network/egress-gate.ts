import dns from "node:dns/promises";
import {
  decideNetworkAddresses,
  decideNetworkTarget,
  formatIp,
  networkTarget,
  parseIp,
  Ruleset,
  targetLabel,
  type ExtraFloor,
  type IpBytes,
  type Layers,
  type NetworkTarget,
  type Verdict,
} from "@gatehouse/policy";

/** Where a connection may go: the address that was judged (so a second lookup cannot lead elsewhere), or why not. */
export type GateAnswer = { ok: true; address: string; label: string } | { ok: false; label: string; reason: string };

/** A connection the rules ask about: a person answers it, or nobody can and it is refused. */
export interface NetworkAsk {
  target: NetworkTarget;
  label: string;
  verdict: Verdict;
}

/** How an ask is answered: allowed, or refused with the reason the program is told. */
export type AskAnswer = { allow: true } | { allow: false; reason: string };

export type Resolve = (host: string) => Promise<IpBytes[]>;

export async function resolveHost(host: string): Promise<IpBytes[]> {
  const found = await dns.lookup(host, { all: true, verbatim: true });
  return found.map((a) => parseIp(a.address)).filter((ip): ip is IpBytes => ip !== null);
}

export interface GateOptions {
  /**
   * The rules of the call whose command connects; null for a person's own command, which no rule
   * limits; a function for a process that outlives calls (an MCP server): the rules as they are
   * at each connection, undefined while the worker has none.
   */
  layers: Layers | null | (() => Layers | undefined);
  /** Addresses besides the built-in floors that only a rule naming them opens (the server's). */
  floors?: readonly ExtraFloor[];
  /** Who answers an ask; without one an ask is refused, saying how to allow the host. */
  ask?: (ask: NetworkAsk) => Promise<AskAnswer>;
  /** Told once per host and port and outcome of what the rules decided without asking, for the audit log. */
  decided?: (target: NetworkTarget, allowed: boolean, reason: string) => void;
  resolve?: Resolve;
}

const PERSON: Verdict = { action: "allow", subject: "", rule: null, reason: "a person's own command" };

/** Connections of one command that may wait for answers at once; more are refused rather than queued without end. */
const MAX_WAITING = 16;

/**
 * Decides each connection of one command by the rules: host and port first, then the addresses the
 * host resolves to. Asks go one at a time, and an answer holds for the command's later connections
 * to the same host and port (a clone or an install connects many times).
 */
export class EgressGate {
  private readonly answers = new Map<string, Promise<AskAnswer>>();
  private readonly reported = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(private readonly opts: GateOptions) {}

  async decide(host: string, port: number): Promise<GateAnswer> {
    const target = networkTarget(host, port);
    if ("error" in target) return { ok: false, label: `${host}:${port}`, reason: target.error };
    const label = targetLabel(target);
    const layers = typeof this.opts.layers === "function" ? this.opts.layers() : this.opts.layers;
    if (layers === undefined) return { ok: false, label, reason: "the worker has no rules from its server yet" };
    const byName = layers ? decideNetworkTarget(layers, target) : { ...PERSON, subject: label };
    if (byName.action === "deny") return this.report(target, label, { ok: false, label, reason: byName.reason });
    // A lookup leaves the machine with the name in it (a name can carry data to its domain's server): a name
    // the rules ask about is looked up only once its answer allows it, then judged by its addresses as any.
    const askedFirst = byName.action === "ask" && target.ip === null;
    if (askedFirst) {
      const answer = await this.askFor({ target, label, verdict: byName });
      if (!answer.allow) return { ok: false, label, reason: answer.reason };
    }
    let addresses: IpBytes[];
    try {
      addresses = target.ip ? [target.ip] : await (this.opts.resolve ?? resolveHost)(target.host);
    } catch (err) {
      return { ok: false, label, reason: `${target.host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
    }
    if (addresses.length === 0) return { ok: false, label, reason: `${target.host} has no address` };
    const verdict = decideNetworkAddresses(layers ?? { static: Ruleset.empty }, target, byName, addresses, this.opts.floors);
    if (verdict.action === "deny") return this.report(target, label, { ok: false, label, reason: verdict.reason });
    const through: GateAnswer = { ok: true, address: formatIp(addresses[0]!), label };
    if (verdict.action === "allow") return this.report(target, label, through, verdict.reason);
    if (askedFirst) return through;
    const answer = await this.askFor({ target, label, verdict });
    return answer.allow ? through : { ok: false, label, reason: answer.reason };
  }

  /** What the rules decided without a person, told once per host, port and outcome. */
  private report(target: NetworkTarget, label: string, answer: GateAnswer, allowedBecause = ""): GateAnswer {
    const key = `${answer.ok ? "+" : "-"}${label}`;
    if (this.opts.decided && !this.reported.has(key)) {
      this.reported.add(key);
      this.opts.decided(target, answer.ok, answer.ok ? allowedBecause : answer.reason);
    }
    return answer;
  }

  private askFor(ask: NetworkAsk): Promise<AskAnswer> {
    const asker = this.opts.ask;
    if (!asker)
      return Promise.resolve({
        allow: false,
        reason: `${ask.verdict.reason}, and nobody can be asked here; a network rule allowing "${ask.target.host}" lets it through`,
      });
    const known = this.answers.get(ask.label);
    if (known) return known;
    if (this.waiting >= MAX_WAITING)
      return Promise.resolve({ allow: false, reason: `more than ${MAX_WAITING} connections of this command are waiting for an answer` });
    this.waiting++;
    const answer = this.queue.then(() => asker(ask)).finally(() => this.waiting--);
    this.queue = answer.catch(() => undefined);
    this.answers.set(ask.label, answer);
    return answer;
  }
}
