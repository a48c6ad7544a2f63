import type { Principal } from "@gatehouse/protocol";

export interface TokenEntry {
  token: string;
  name: string;
}

/** Maps tokens to principals; an unknown or missing token is nobody. */
export class Tokens {
  private readonly byToken = new Map<string, Principal>();

  constructor(workers: TokenEntry[], clients: TokenEntry[]) {
    for (const w of workers) this.byToken.set(w.token, { kind: "worker", name: w.name });
    for (const c of clients) this.byToken.set(c.token, { kind: "client", name: c.name });
  }

  principal(token: unknown): Principal | null {
    return typeof token === "string" ? (this.byToken.get(token) ?? null) : null;
  }

  fromAuthorization(header: string | undefined): Principal | null {
    const m = /^Bearer (.+)$/.exec(header ?? "");
    return m ? this.principal(m[1]) : null;
  }
}
