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
 * sessions whose turns it runs. A lease is renewed with the instance; one not renewed in time
 * is free for any instance to take.
 */
export class Instances {
  constructor(
    private readonly pool: pg.Pool,
    readonly id: string,
    readonly timing: LeaseTiming,
  ) {}

  private get ttl(): string {
    return `${this.timing.ttlMs} milliseconds`;
  }

  /** Renews this instance's liveness and every lease it holds. */
  async renew(): Promise<void> {
    await this.pool.query(
      `WITH me AS (INSERT INTO instances (id, alive_until) VALUES ($1, now() + $2::interval)
                   ON CONFLICT (id) DO UPDATE SET alive_until = EXCLUDED.alive_until RETURNING id)
       UPDATE session_leases SET expires_at = now() + $2::interval WHERE instance_id = (SELECT id FROM me)`,
      [this.id, this.ttl],
    );
  }

  /** Takes a session's lease when it is free, expired or already ours; the holder it has afterwards. */
  async claim(sessionId: string): Promise<{ holder: string; ours: boolean; expiresInMs: number }> {
    const { rows } = await this.pool.query<{ instance_id: string }>(
      `INSERT INTO session_leases AS l (session_id, instance_id, expires_at) VALUES ($1, $2, now() + $3::interval)
       ON CONFLICT (session_id) DO UPDATE SET instance_id = EXCLUDED.instance_id, expires_at = EXCLUDED.expires_at
         WHERE l.instance_id = EXCLUDED.instance_id OR l.expires_at < now()
       RETURNING instance_id`,
      [sessionId, this.id, this.ttl],
    );
    if (rows[0]) return { holder: this.id, ours: true, expiresInMs: this.timing.ttlMs };
    const held = await this.pool.query<{ instance_id: string; ms: number }>(
      "SELECT instance_id, extract(epoch FROM expires_at - now()) * 1000 AS ms FROM session_leases WHERE session_id = $1",
      [sessionId],
    );
    const row = held.rows[0];
    return row ? { holder: row.instance_id, ours: false, expiresInMs: Math.max(0, Number(row.ms)) } : this.claim(sessionId);
  }

  /** Takes the leases that their instances stopped renewing, a batch at a time; the sessions taken. */
  async takeExpired(limit = 200): Promise<string[]> {
    const { rows } = await this.pool.query<{ session_id: string }>(
      `UPDATE session_leases SET instance_id = $1, expires_at = now() + $2::interval
       WHERE session_id IN (SELECT session_id FROM session_leases WHERE expires_at < now() ORDER BY expires_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING session_id`,
      [this.id, this.ttl, limit],
    );
    return rows.map((r) => r.session_id);
  }

  /** The instances alive now. */
  async alive(): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ id: string }>("SELECT id FROM instances WHERE alive_until >= now()");
    return new Set(rows.map((r) => r.id));
  }

  /** Leaves: this instance's leases are freed for the others at once, and its row goes. */
  async leave(): Promise<void> {
    await this.pool.query(
      "WITH gone AS (DELETE FROM instances WHERE id = $1) UPDATE session_leases SET expires_at = now() - interval '1 second' WHERE instance_id = $1",
      [this.id],
    );
  }
}
