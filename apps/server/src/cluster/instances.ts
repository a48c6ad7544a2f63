import type pg from "pg";

/** How an instance's liveness and its sessions' leases are timed. */
export interface LeaseTiming {
  /** A lease (and an instance's liveness) lasts this long past its last renewal. */
  ttlMs: number;
  /** Renewals, and looks for the sessions of instances that stopped renewing, this often. */
  renewMs: number;
}

export const DEFAULT_LEASE_TIMING: LeaseTiming = { ttlMs: 5000, renewMs: 1000 };

/**
 * This instance among the others on one database: its liveness row, and the leases of the
 * sessions whose turns it runs. A lease holds while its instance is alive, so renewing the
 * instance renews them all in one write; the leases of an instance that stopped renewing are
 * free for any instance to take.
 */
export class Instances {
  constructor(
    private readonly pool: pg.Pool,
    readonly id: string,
    readonly timing: LeaseTiming,
  ) {}

  /** Renews this instance's liveness, and with it every lease it holds. */
  async renew(): Promise<void> {
    await this.pool.query(
      `INSERT INTO instances (id, alive_until) VALUES ($1, now() + $2::interval) ON CONFLICT (id) DO UPDATE SET alive_until = EXCLUDED.alive_until`,
      [this.id, `${this.timing.ttlMs} milliseconds`],
    );
  }

  /**
   * Takes a session's lease when it is free, held by an instance that is gone, or already ours;
   * says who holds it afterwards and, when another does, how long that one has left to renew.
   */
  async claim(sessionId: string): Promise<{ holder: string; ours: boolean; expiresInMs: number }> {
    const { rows } = await this.pool.query<{ instance_id: string }>(
      `INSERT INTO session_leases AS l (session_id, instance_id) VALUES ($1, $2)
       ON CONFLICT (session_id) DO UPDATE SET instance_id = EXCLUDED.instance_id
         WHERE l.instance_id = EXCLUDED.instance_id
            OR NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = l.instance_id AND i.alive_until >= now())
       RETURNING instance_id`,
      [sessionId, this.id],
    );
    if (rows[0]) return { holder: this.id, ours: true, expiresInMs: this.timing.ttlMs };
    const held = await this.pool.query<{ instance_id: string; ms: number | null }>(
      `SELECT l.instance_id, extract(epoch FROM i.alive_until - now()) * 1000 AS ms
       FROM session_leases l LEFT JOIN instances i ON i.id = l.instance_id WHERE l.session_id = $1`,
      [sessionId],
    );
    const row = held.rows[0];
    return row ? { holder: row.instance_id, ours: false, expiresInMs: Math.max(0, Number(row.ms ?? 0)) } : this.claim(sessionId);
  }

  /** Takes the leases of instances that stopped renewing, a batch at a time; the sessions taken. */
  async takeExpired(limit = 200): Promise<string[]> {
    const { rows } = await this.pool.query<{ session_id: string }>(
      `UPDATE session_leases SET instance_id = $1
       WHERE session_id IN (
         SELECT l.session_id FROM session_leases l LEFT JOIN instances i ON i.id = l.instance_id
         WHERE i.id IS NULL OR i.alive_until < now() LIMIT $2 FOR UPDATE OF l SKIP LOCKED)
       RETURNING session_id`,
      [this.id, limit],
    );
    return rows.map((r) => r.session_id);
  }

  /** Of these sessions, those whose lease another instance holds. */
  async heldByOthers(sessionIds: string[]): Promise<string[]> {
    const { rows } = await this.pool.query<{ session_id: string }>(
      "SELECT session_id FROM session_leases WHERE session_id = ANY($1::text[]) AND instance_id <> $2",
      [sessionIds, this.id],
    );
    return rows.map((r) => r.session_id);
  }

  /** The instances alive now. */
  async alive(): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ id: string }>("SELECT id FROM instances WHERE alive_until >= now()");
    return new Set(rows.map((r) => r.id));
  }

  /** Leaves: this instance's leases are free for the others at once. */
  async leave(): Promise<void> {
    await this.pool.query("DELETE FROM instances WHERE id = $1", [this.id]);
  }
}
