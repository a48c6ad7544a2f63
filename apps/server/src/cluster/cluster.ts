import type { Log } from "@gatehouse/log";
import type { Principal, ToolOutput } from "@gatehouse/protocol";
import { nanoid } from "nanoid";
import type { StoreSetting } from "../config/index.js";
import { GatehouseError } from "../errors.js";
import type { StoredEvent } from "../store/index.js";
import type { OtherInstances, ToolCall, WorkerRegistry } from "../workers/index.js";
import { EventFeed } from "./event-feed.js";
import { DEFAULT_LEASE_TIMING, Instances, type LeaseTiming } from "./instances.js";
import { Listener } from "./listener.js";
import { MAILBOX_CHANNEL, Mailbox, NoAnswerError, type Request } from "./mailbox.js";
import { RemoteWorkers, WORKERS_CHANNEL } from "./remote-workers.js";
import { EVENTS_CHANNEL, PostgresStore } from "../store/index.js";

/** The cluster of instances on the configured PostgreSQL database; undefined for a store of one process. */
export async function joinCluster(setting: StoreSetting, log: Log): Promise<PostgresCluster | undefined> {
  if (setting.kind !== "postgres") return undefined;
  const where = redactedUrl(setting.url);
  let store: PostgresStore;
  try {
    store = await PostgresStore.open(setting.url, (err) => log.warn("a PostgreSQL connection failed", { error: err.message }));
  } catch (err) {
    if (err instanceof GatehouseError) throw err;
    throw new GatehouseError("CONFIG", `cannot use the PostgreSQL store at ${where}: ${(err as Error).message}`);
  }
  log.info("state kept in PostgreSQL", { url: where });
  return new PostgresCluster(store, setting.url, log);
}

/** A database URL fit for logs and errors: its password left out. */
function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(an unreadable URL)";
  }
}

/** A procedure on a session that only the instance running the session's turns may carry out. */
export type SessionCommand = (p: Principal, input: { sessionId: string }) => Promise<unknown>;

/** What the cluster needs from the rest of the server, given once it is assembled. */
export interface ClusterParts {
  registry: WorkerRegistry;
  /** Hands an event to this instance's subscribers. */
  deliver: (stored: StoredEvent) => void;
  /** Session commands by procedure name ("agent.prompt", …), run here when this instance owns the session. */
  commands: Record<string, SessionCommand>;
  /** Makes sessions taken over from a lost instance whole here: their pending approvals answerable, their turns going on. */
  resume: (sessionIds: string[]) => Promise<void>;
  /** Lets go of sessions another instance took over while this one was paused past its lease. */
  release: (sessionIds: string[]) => void;
  /** Stops the session's `!command`s that were typed on this instance. */
  abortShells: (sessionId: string, by: string) => void;
}

/**
 * Several server instances on one PostgreSQL database, working as one: events reach every
 * instance's subscribers (LISTEN/NOTIFY, the payload an event id), a session's turns run on the
 * instance that holds its lease and commands on it are carried out there, the sessions of an
 * instance that stops renewing are taken over, and tool calls reach workers on any instance.
 */
export class PostgresCluster {
  readonly id = nanoid(12);
  readonly instances: Instances;
  readonly mailbox: Mailbox;
  readonly workers: RemoteWorkers;
  private readonly listener: Listener;
  private feed: EventFeed | undefined;
  private parts: ClusterParts | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  /** Renewals are failing (the database is away): said once when they start failing and once when they work again, not every second. */
  private renewFailing = false;
  private renewing: Promise<void> | null = null;
  /** Until when (by `performance.now()`) the last renewal keeps this instance's leases: its ttl, counted from before it was sent. */
  private validUntil = 0;
  private readonly roots = new Map<string, string>();
  /** The instances alive at the last renewal. */
  private alive = new Set<string>();
  private readonly calls = new Map<string, AbortController>();
  /** Sessions of this instance that must be made whole before a command runs on them (taken over, not yet resumed). */
  private readonly resuming = new Map<string, Promise<void>>();
  /** Top-level sessions whose turns this instance runs (created here or taken over and resumed). */
  private readonly owned = new Set<string>();

  constructor(
    readonly store: PostgresStore,
    url: string,
    private readonly log: Log,
    timing: LeaseTiming = DEFAULT_LEASE_TIMING,
  ) {
    this.instances = new Instances(store.pool, this.id, timing);
    this.mailbox = new Mailbox(store.pool, this.id, (r, progress) => this.serve(r, progress), log);
    this.workers = new RemoteWorkers(store.pool, this.mailbox, log);
    this.listener = new Listener(url, log, () => {
      this.feed?.resync();
      this.mailbox.drain();
      this.workers.load().catch((err: unknown) => log.warn("could not read the workers of other instances", { err }));
    });
    this.listener.on(EVENTS_CHANNEL, (p) => this.feed?.notified(p));
    this.listener.on(MAILBOX_CHANNEL, (p) => this.mailbox.notified(p));
    this.listener.on(WORKERS_CHANNEL, (p) => this.workers.notified(p));
  }

  /** Joins the cluster once the server is assembled: listens, reads the others' workers, starts renewing. */
  async start(parts: ClusterParts): Promise<void> {
    this.parts = parts;
    this.feed = new EventFeed(this.store, parts.deliver, this.log);
    await this.renew();
    await this.listener.start();
    await this.feed.start();
    await this.workers.load();
    this.mailbox.drain();
    this.timer = setInterval(() => void this.tick(), this.instances.timing.renewMs);
    this.timer.unref();
    this.log.info("joined the server instances on PostgreSQL", { instance: this.id });
  }

  /** An event this instance stored: handed to its subscribers in id order with everyone else's. */
  stored(event: StoredEvent): Promise<void> {
    return this.feed ? this.feed.stored(event) : Promise.resolve();
  }

  /** Renews this instance and its leases, then takes over the sessions of instances that stopped. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.renew();
      if (this.renewFailing) this.log.info("renewing this instance's leases again");
      this.renewFailing = false;
      const alive = await this.instances.alive();
      if (!sameSet(alive, this.alive)) {
        this.alive = alive;
        await this.forgetGone(alive);
      }
      const taken = await this.instances.takeExpired();
      if (taken.length > 0) {
        this.log.info("took over sessions of a server instance that stopped", { sessions: taken.length });
        await this.resume(taken);
      }
    } catch (err) {
      if (!this.renewFailing) this.log.warn("could not renew this instance's leases; trying again every second", { err });
      this.renewFailing = true;
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Renews this instance's liveness, and with it its leases. A renewal that comes after the last
   * one ran out (the process was paused, or the database unreachable) may find sessions taken
   * over by another instance: those are let go here.
   */
  private renew(): Promise<void> {
    return (this.renewing ??= this.renewNow().finally(() => (this.renewing = null)));
  }

  private async renewNow(): Promise<void> {
    const sent = performance.now();
    const covered = this.validUntil;
    await this.instances.renew();
    this.validUntil = sent + this.instances.timing.ttlMs;
    // The leases may have run out before this renewal reached the database (a pause can fall
    // between sending it and its answer): then another instance may hold some of them now.
    if (performance.now() < covered || this.owned.size === 0) return;
    const lost = await this.instances.heldByOthers([...this.owned]);
    if (lost.length === 0) return;
    for (const id of lost) this.owned.delete(id);
    this.log.warn("this instance was paused past its lease: sessions another instance took over are left to it", { sessions: lost.length });
    this.parts?.release(lost);
  }

  /**
   * Whether this instance still runs the session's turns: checked before each step of a turn, so
   * that an instance paused past its lease does not go on with a turn another instance carries on.
   */
  async holds(sessionId: string): Promise<boolean> {
    const root = await this.rootOf(sessionId);
    // Nothing is awaited between a valid lease and the answer, so the caller acts while it holds.
    if (performance.now() >= this.validUntil) await this.renew();
    return this.owned.has(root);
  }

  private resume(sessionIds: string[]): Promise<void> {
    for (const id of sessionIds) this.owned.add(id);
    const done = this.parts!.resume(sessionIds).catch((err: unknown) => this.log.error("sessions taken over could not be resumed", { err }));
    for (const id of sessionIds) this.resuming.set(id, done);
    return done.finally(() => {
      for (const id of sessionIds) if (this.resuming.get(id) === done) this.resuming.delete(id);
    });
  }

  /** A new session: this instance runs its turns. */
  async adopt(sessionId: string): Promise<void> {
    await this.instances.claim(sessionId);
    this.owned.add(sessionId);
  }

  /** The top-level session a session belongs to: a subagent's turns run with its parent's. */
  private async rootOf(sessionId: string): Promise<string> {
    const known = this.roots.get(sessionId);
    if (known) return known;
    let id = sessionId;
    for (let depth = 0; depth < 100; depth++) {
      const parent = (await this.store.getSession(id))?.parentId;
      if (!parent) break;
      id = parent;
    }
    // Sessions are never re-parented, so a root stays true; the map is only kept from growing without end.
    if (this.roots.size >= 10_000) this.roots.clear();
    this.roots.set(sessionId, id);
    return id;
  }

  /**
   * Carries out a command on the instance that owns the session: here (taking the session over
   * first when its owner is gone), or on its owner through the database. An owner that does not
   * answer before its lease runs out is taken to be gone, and the command tried again.
   */
  async onOwner(name: string, p: Principal, input: { sessionId: string }, local: SessionCommand): Promise<unknown> {
    const root = await this.rootOf(input.sessionId);
    for (let attempt = 0; ; attempt++) {
      const lease = await this.instances.claim(root);
      if (lease.ours) {
        if (!this.owned.has(root)) await this.resume([root]);
        await this.resuming.get(root);
        return local(p, input);
      }
      try {
        return await this.mailbox.request(lease.holder, { kind: "session", name, principal: p, input }, Math.max(5000, lease.expiresInMs + 1000));
      } catch (err) {
        if (!(err instanceof NoAnswerError) || attempt >= 2) throw err;
        this.log.warn("a server instance did not answer; trying again", { instance: lease.holder, command: name });
      }
    }
  }

  /** What another instance asked of this one. */
  private async serve(r: Request, progress: (value: unknown) => void): Promise<unknown> {
    const parts = this.parts;
    if (!parts) throw new GatehouseError("BUSY", "this server instance is starting");
    if (r.kind === "session") {
      const command = parts.commands[String(r.name)];
      if (!command) throw new GatehouseError("REFUSED", `unknown session command ${String(r.name)}`);
      const input = r.input as { sessionId: string };
      return this.onOwner(String(r.name), r.principal as Principal, input, command);
    }
    if (r.kind === "dispatch") return this.dispatchHere(parts.registry, r, r.stream === true ? progress : undefined);
    if (r.kind === "cancel-call") this.calls.get(String(r.callId))?.abort();
    if (r.kind === "abort-shells") parts.abortShells(String(r.sessionId), String(r.by));
    return null;
  }

  private async dispatchHere(registry: WorkerRegistry, r: Request, onOutput?: (text: string) => void): Promise<ToolOutput> {
    const controller = new AbortController();
    const callId = String(r.callId);
    this.calls.set(callId, controller);
    try {
      return await registry.dispatchHere(String(r.workerId), r.message as ToolCall, controller.signal, onOutput);
    } finally {
      this.calls.delete(callId);
    }
  }

  /**
   * Stops a session's `!command`s on the other instances: a person's command runs on the instance
   * it was typed on, which need not be the one an abort reaches.
   */
  abortShellsElsewhere(sessionId: string, by: string): void {
    for (const id of this.alive) if (id !== this.id) void this.mailbox.signal(id, { kind: "abort-shells", sessionId, by });
  }

  /** Forgets the workers and letters of instances that are gone. */
  private async forgetGone(alive: Set<string>): Promise<void> {
    await this.workers.forgetGone(alive);
    await this.store.pool.query("DELETE FROM mailbox WHERE to_instance <> ALL($1::text[])", [[...alive]]);
  }

  /** The workers of other instances, as the registry asks for them. */
  otherInstances(): OtherInstances {
    const warn = (what: string) => (err: unknown) => this.log.warn(`could not tell other instances that a worker ${what}`, { err });
    return {
      get: (id) => this.workers.get(id),
      list: () => this.workers.list(),
      dispatch: (id, message, signal, onOutput) => this.workers.dispatch(id, message, signal, onOutput),
      announce: (entry) => void this.workers.announce(entry).catch(warn("connected")),
      withdraw: (id) => void this.workers.withdraw(id).catch(warn("left")),
    };
  }

  /** Leaves the cluster: the sessions it ran are free for the others at once. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.mailbox.close();
    await this.listener.close();
    await this.instances.leave().catch((err: unknown) => this.log.warn("could not free this instance's leases", { err }));
  }
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
