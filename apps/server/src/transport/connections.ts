import type { ServerResponse } from "node:http";
import type { Principal } from "@gatehouse/protocol";
import type { Log } from "../log.js";

/** An open connection as far as its bookkeeping goes: a client's or a worker's WebSocket, or a stream of server-sent events. */
export interface Peer {
  /** Bytes accepted for sending and not yet taken by the network. */
  readonly bufferedAmount: number;
  close(code: number, reason: string): void;
  terminate(): void;
}

/**
 * A subscription answered as server-sent events, as a peer: its response holds the connection for
 * as long as the stream runs. The stream's own bytes cannot carry a reason once it is cut (a
 * reader that does not read would not see it), so closing it ends the connection; the log says why.
 */
export function streamPeer(res: ServerResponse): Peer {
  return {
    get bufferedAmount() {
      return res.writableLength;
    },
    close: () => res.destroy(),
    terminate: () => res.destroy(),
  };
}

/** A close frame's reason, cut to the 123 bytes a WebSocket allows, on a character boundary. */
export function closeReason(text: string): string {
  let cut = text.slice(0, 123);
  while (Buffer.byteLength(cut) > 123) cut = cut.slice(0, -1);
  return cut;
}

/**
 * Every authenticated connection and the token it showed (WebSockets, worker links and event
 * streams alike); at most `maxPerToken` per token, a client token's and a worker token's apart.
 */
export class Connections {
  private readonly open = new Map<Principal, Peer>();

  constructor(
    private readonly maxPerToken: (p: Principal) => { max: number; setting: string },
    private readonly log: Log,
  ) {}

  /** Counts a connection in; the reason it is refused when its token has too many open (the caller closes it). */
  admit(p: Principal, peer: Peer): string | null {
    let count = 0;
    for (const other of this.open.keys()) if (other.tokenId === p.tokenId && other.kind === p.kind) count++;
    const { max, setting } = this.maxPerToken(p);
    if (count >= max) {
      this.log.warn(`limit hit: ${p.kind === "worker" ? "worker links" : "connections"} per token`, { token: p.name, limit: max });
      return `too many ${p.kind === "worker" ? "worker links" : "connections"} for the token "${p.name}": it has ${count} open, the most it may (limits.${setting})`;
    }
    this.open.set(p, peer);
    return null;
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
