import type { Log } from "@gatehouse/log";
import type { ToolOutput } from "@gatehouse/protocol";
import { nanoid } from "nanoid";
import type pg from "pg";
import { GatehouseError } from "../errors.js";
import type { ToolCall, WorkerEntry } from "../workers/index.js";
import type { Mailbox } from "./mailbox.js";

export const WORKERS_CHANNEL = "gatehouse_workers";

/** How long past a call's own timeout its instance may take to answer before the call fails. */
const REPLY_MARGIN_MS = 10_000;

/**
 * The workers connected to other instances: a copy of each one's registration, kept fresh through
 * notifications, and their tool calls sent to the instance that holds the connection.
 */
export class RemoteWorkers {
  private readonly byId = new Map<string, { instanceId: string; entry: WorkerEntry }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly mailbox: Mailbox,
    private readonly log: Log,
  ) {}

  private get instanceId(): string {
    return this.mailbox.instanceId;
  }

  /** Reads every worker of the other live instances. */
  async load(): Promise<void> {
    const { rows } = await this.pool.query<{ id: string; instance_id: string; entry: WorkerEntry }>(
      "SELECT w.id, w.instance_id, w.entry FROM workers w JOIN instances i ON i.id = w.instance_id WHERE i.alive_until >= now() AND w.instance_id <> $1",
      [this.instanceId],
    );
    this.byId.clear();
    for (const r of rows) this.byId.set(r.id, { instanceId: r.instance_id, entry: { ...r.entry, connected: true } });
  }

  /** A worker connected, changed or left somewhere: read its row again. */
  notified(workerId: string): void {
    this.pool
      .query<{ instance_id: string; entry: WorkerEntry }>("SELECT instance_id, entry FROM workers WHERE id = $1", [workerId])
      .then(({ rows }) => {
        const row = rows[0];
        if (!row || row.instance_id === this.instanceId) this.byId.delete(workerId);
        else this.byId.set(workerId, { instanceId: row.instance_id, entry: { ...row.entry, connected: true } });
      })
      .catch((err: unknown) => this.log.warn("could not read a worker of another instance", { workerId, err }));
  }

  /** Drops the workers of instances that are gone (their rows too, once). */
  async forgetGone(alive: Set<string>): Promise<void> {
    for (const [id, w] of this.byId) if (!alive.has(w.instanceId)) this.byId.delete(id);
    await this.pool.query(
      `WITH gone AS (DELETE FROM workers WHERE instance_id <> ALL($1::text[]) RETURNING id) SELECT pg_notify('${WORKERS_CHANNEL}', id) FROM gone`,
      [[...alive]],
    );
  }

  /** This instance holds a worker's connection now (or its tools changed): every instance is told. */
  async announce(entry: WorkerEntry): Promise<void> {
    await this.pool.query(
      `WITH saved AS (INSERT INTO workers (id, instance_id, entry) VALUES ($1, $2, $3)
                      ON CONFLICT (id) DO UPDATE SET instance_id = EXCLUDED.instance_id, entry = EXCLUDED.entry RETURNING id)
       SELECT pg_notify('${WORKERS_CHANNEL}', id) FROM saved`,
      [entry.id, this.instanceId, entry],
    );
  }

  /** This instance lost a worker's connection. */
  async withdraw(workerId: string): Promise<void> {
    await this.pool.query(
      `WITH gone AS (DELETE FROM workers WHERE id = $1 AND instance_id = $2 RETURNING id) SELECT pg_notify('${WORKERS_CHANNEL}', id) FROM gone`,
      [workerId, this.instanceId],
    );
  }

  get(workerId: string): WorkerEntry | undefined {
    return this.byId.get(workerId)?.entry;
  }

  list(): WorkerEntry[] {
    return [...this.byId.values()].map((w) => w.entry);
  }

  /** Runs a call on a worker of another instance; undefined when no instance has that worker. */
  dispatch(workerId: string, message: ToolCall, signal?: AbortSignal, onOutput?: (text: string) => void): Promise<ToolOutput> | undefined {
    const remote = this.byId.get(workerId);
    if (!remote) return undefined;
    if (signal?.aborted) return Promise.reject(new GatehouseError("ABORTED", "the call was aborted"));
    const callId = nanoid();
    const cancel = () => void this.mailbox.signal(remote.instanceId, { kind: "cancel-call", callId });
    signal?.addEventListener("abort", cancel, { once: true });
    return this.mailbox
      .request<ToolOutput>(
        remote.instanceId,
        { kind: "dispatch", callId, workerId, message, stream: onOutput !== undefined },
        message.timeoutMs + REPLY_MARGIN_MS,
        onOutput && ((text) => onOutput(String(text))),
      )
      .finally(() => signal?.removeEventListener("abort", cancel));
  }
}
