import type { Log } from "@gatehouse/log";
import type { Principal, ToolOutput } from "@gatehouse/protocol";
import { nanoid } from "nanoid";
import { GatehouseError } from "../errors.js";
import type { StoredEvent } from "../store.js";
import type { WorkerRegistry } from "../worker-registry.js";
import { EventFeed } from "./event-feed.js";
import { DEFAULT_LEASE_TIMING, Instances, type LeaseTiming } from "./instances.js";
import { Listener } from "./listener.js";
import { MAILBOX_CHANNEL, Mailbox, type Request } from "./mailbox.js";
import { RemoteWorkers, WORKERS_CHANNEL } from "./remote-workers.js";
import { EVENTS_CHANNEL, PostgresStore } from "./store.js";

/** A procedure on a session that only the instance running the session's turns may carry out. */
export type SessionCommand = (p: Principal, input: { sessionId: string }) => Promise<unknown>;

/** How long an instance waits for another to carry out a session command. */
const COMMAND_TIMEOUT_MS = 15_000;

/** What the cluster needs from the rest of the server, given once it is assembled. */
export interface ClusterParts {
  registry: WorkerRegistry;
  /** Hands an event to this instance's subscribers. */
  deliver: (stored: StoredEvent) => void;
  /** Session commands by procedure name ("agent.prompt", …), run here when this instance owns the session. */
  commands: Record<string, SessionCommand>;
  /** Makes sessions taken over from a lost instance whole here: their pending approvals answerable, their turns going on. */
  resume: (sessionIds: string[]) => Promise<void>;
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
  private readonly calls = new Map<string, AbortController>();
  /** Sessions of this instance that must be made whole before a command runs on them (taken over, not yet resumed). */
  private readonly resuming = new Map<string, Promise<void>>();

  constructor(
    readonly store: PostgresStore,
    url: string,
    private readonly log: Log,
    timing: LeaseTiming = DEFAULT_LEASE_TIMING,
  ) {
    this.instances = new Instances(store.pool, this.id, timing);
    this.mailbox = new Mailbox(store.pool, this.id, (r) => this.serve(r), log);
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
    await this.instances.renew();
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
      await this.instances.renew();
      const taken = await this.instances.takeExpired();
      if (taken.length > 0) {
        this.log.info("took over sessions of a server instance that stopped", { sessions: taken.length });
        await this.workers.forgetGone(await this.instances.alive());
        await this.resume(taken);
      }
    } catch (err) {
      this.log.warn("could not renew this instance's leases", { err });
    } finally {
      this.ticking = false;
    }
  }

  private resume(sessionIds: string[]): Promise<void> {
    const done = this.parts!.resume(sessionIds).catch((err: unknown) => this.log.error("sessions taken over could not be resumed", { err }));
    for (const id of sessionIds) this.resuming.set(id, done);
    return done.finally(() => {
      for (const id of sessionIds) if (this.resuming.get(id) === done) this.resuming.delete(id);
    });
  }

  /** A new session: this instance runs its turns. */
  async adopt(sessionId: string): Promise<void> {
    await this.instances.claim(sessionId);
  }

  /**
   * Carries out a command on the instance that owns the session: here (taking the session over
   * first when its owner is gone), or on its owner through the database.
   */
  async onOwner(name: string, p: Principal, input: { sessionId: string }, local: SessionCommand): Promise<unknown> {
    const lease = await this.instances.claim(input.sessionId);
    if (lease.ours) {
      const pending = this.resuming.get(input.sessionId);
      if (pending) await pending;
      return local(p, input);
    }
    return this.mailbox.request(lease.holder, { kind: "session", name, principal: p, input }, COMMAND_TIMEOUT_MS);
  }

  /** What another instance asked of this one. */
  private async serve(r: Request): Promise<unknown> {
    const parts = this.parts;
    if (!parts) throw new GatehouseError("BUSY", "this server instance is starting");
    if (r.kind === "session") {
      const command = parts.commands[String(r.name)];
      if (!command) throw new GatehouseError("REFUSED", `unknown session command ${String(r.name)}`);
      const input = r.input as { sessionId: string };
      return this.onOwner(String(r.name), r.principal as Principal, input, command);
    }
    if (r.kind === "dispatch") return this.dispatchHere(parts.registry, r);
    if (r.kind === "cancel-call") this.calls.get(String(r.callId))?.abort();
    return null;
  }

  private async dispatchHere(registry: WorkerRegistry, r: Request): Promise<ToolOutput> {
    const controller = new AbortController();
    const callId = String(r.callId);
    this.calls.set(callId, controller);
    try {
      return await registry.dispatch(String(r.workerId), r.message as Parameters<WorkerRegistry["dispatch"]>[1], controller.signal);
    } finally {
      this.calls.delete(callId);
    }
  }

  /** Leaves the cluster: the sessions it ran are free for the others at once. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.mailbox.close();
    await this.listener.close();
    await this.instances.leave().catch((err: unknown) => this.log.warn("could not free this instance's leases", { err }));
  }
}
