import { createHash } from "node:crypto";
import { closeClient, type GatehouseClient, type GatehouseEvent } from "@gatehouse/protocol";
import { createNodeClient, type TlsClientOptions } from "@gatehouse/protocol/node";
import type { Log } from "@gatehouse/log";

export type EventHandler = (id: string, event: GatehouseEvent) => Promise<void>;

/** A name for a token that can be kept on disk without keeping the token. */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex").slice(0, 16);
}

/**
 * One Gatehouse connection, shared by the Telegram users who act with the same token. Its events
 * are handled one at a time, in order; the subscription resumes after the last one handled.
 */
export class GatehouseLink {
  readonly client: GatehouseClient;
  readonly key: string;
  private subscription: { unsubscribe(): void } | null = null;
  private queue: Promise<void> = Promise.resolve();
  private online = false;

  constructor(
    readonly url: string,
    token: string,
    private readonly log: Log,
    tls: TlsClientOptions = {},
  ) {
    this.key = tokenDigest(token);
    this.client = createNodeClient({ url, token, tls });
  }

  /** Follows the server's events; `onFollowing` runs on every (re)subscription, in the event order. */
  start(lastEventId: string | undefined, handle: EventHandler, onFollowing: () => Promise<void>): void {
    this.subscription = this.client.agent.onEvents.subscribe(lastEventId ? { lastEventId } : {}, {
      onStarted: () => {
        if (!this.online) this.log.info("following the server's events", { url: this.url, connection: this.key });
        this.online = true;
        this.queue = this.queue
          .then(onFollowing)
          .catch((err: unknown) => this.log.warn("open approvals could not be checked", { error: (err as Error).message }));
      },
      onData: (d) => {
        const event = d.data as GatehouseEvent;
        this.queue = this.queue
          .then(() => handle(d.id, event))
          .catch((err: unknown) => this.log.warn("an event could not be shown", { type: event.type, error: (err as Error).message }));
      },
      onError: (err) => this.log.warn("the server ended the event stream", { url: this.url, connection: this.key, error: err.message }),
      onConnectionStateChange: (s) => {
        if (s.state === "connecting" && this.online) {
          this.online = false;
          this.log.warn("lost the server; reconnecting", { url: this.url, connection: this.key });
        }
      },
    });
  }

  /** Resolves once every event received so far has been handled. */
  idle(): Promise<void> {
    return this.queue;
  }

  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    await this.queue;
    await closeClient(this.client);
  }
}
