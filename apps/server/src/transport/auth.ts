import crypto from "node:crypto";
import type { Principal } from "@gatehouse/protocol";
import type { ClientTokenConfig, WorkerTokenConfig } from "../config/index.js";

/** The SHA-256 of a token as the config's `tokenHash` spells it. */
export function hashToken(token: string): string {
  return `sha256:${crypto.createHash("sha256").update(token, "utf8").digest("hex")}`;
}

function identity(entry: WorkerTokenConfig | ClientTokenConfig): string {
  return entry.tokenHash ?? hashToken(entry.token!);
}

function entryPrincipal(tokenId: string, kind: Principal["kind"], entry: WorkerTokenConfig | ClientTokenConfig): Principal {
  if (kind === "worker") return { kind, name: entry.name, tokenId, workers: entry.workers ?? [] };
  const c = entry as ClientTokenConfig;
  return { kind, name: c.name, tokenId, role: c.role, workers: c.workers ?? ["*"], shell: c.role === "admin" || c.shell };
}

/**
 * Maps tokens to principals; an unknown or missing token is nobody. Tokens are kept only as
 * hashes, so a config may hold either the token or its hash.
 */
export class Tokens {
  private readonly byHash = new Map<string, Principal>();

  constructor(workers: readonly WorkerTokenConfig[], clients: readonly ClientTokenConfig[]) {
    for (const w of workers) this.add(w, "worker");
    for (const c of clients) this.add(c, "client");
  }

  private add(entry: WorkerTokenConfig | ClientTokenConfig, kind: Principal["kind"]): void {
    const id = identity(entry);
    this.byHash.set(id, entryPrincipal(id, kind, entry));
  }

  /** A fresh principal for each connection that shows a known token. */
  principal(token: unknown): Principal | null {
    if (typeof token !== "string" || token.length > 4096) return null;
    const found = this.byHash.get(hashToken(token));
    return found ? { ...found } : null;
  }

  fromAuthorization(header: string | undefined): Principal | null {
    const m = /^Bearer (.+)$/.exec(header ?? "");
    return m ? this.principal(m[1]) : null;
  }

  /** Whether a principal still stands as it was granted: same token, same name, role and workers. */
  grants(p: Principal): boolean {
    const now = p.tokenId === undefined ? undefined : this.byHash.get(p.tokenId);
    return now !== undefined && JSON.stringify(now) === JSON.stringify({ ...p });
  }
}

/** Whether a worker-id list (with "*" for any) covers a worker. */
export function coversWorker(workers: readonly string[] | undefined, workerId: string): boolean {
  return workers !== undefined && (workers.includes("*") || workers.includes(workerId));
}
