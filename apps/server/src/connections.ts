import type { Principal } from "@gatehouse/protocol";
import type { Log } from "./log.js";

/** An open connection as far as its bookkeeping goes: the WebSocket of a client or a worker. */
export interface Peer {
  readonly bufferedAmount: number;
  close(code: number, reason: string): void;
  terminate(): void;
}

/** Every authenticated connection and the token it showed; at most `maxPerToken` per token. */
export class Connections {
  private readonly open = new Map<Principal, Peer>();

  constructor(
    private readonly maxPerToken: () => number,
    private readonly log: Log,
  ) {}

  /** Counts a connection in; false (and the peer closed) when its token has too many open. */
  admit(p: Principal, peer: Peer): boolean {
    let count = 0;
    for (const other of this.open.keys()) if (other.tokenId === p.tokenId) count++;
    if (count >= this.maxPerToken()) {
      this.log.warn("limit hit: connections per token", { token: p.name, limit: this.maxPerToken() });
      peer.close(1008, `too many connections for the token "${p.name}"`);
      return false;
    }
    this.open.set(p, peer);
    return true;
  }

  drop(p: Principal): void {
    this.open.delete(p);
  }

  peerOf(p: Principal): Peer | undefined {
    return this.open.get(p);
  }

  /** Closes every connection whose principal no longer stands (a token removed or changed). */
  closeUnless(stands: (p: Principal) => boolean): number {
    let closed = 0;
    for (const [p, peer] of [...this.open]) {
      if (stands(p)) continue;
      this.open.delete(p);
      this.log.info("connection closed: its token was removed or changed", { token: p.name });
      peer.close(4001, "the token was removed or changed");
      closed++;
    }
    return closed;
  }
}
