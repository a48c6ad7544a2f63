import type { Log } from "@gatehouse/log";
import pg from "pg";

type Handler = (payload: string) => void;

/**
 * One connection that LISTENs to PostgreSQL notifications and hands each to its channel's
 * handler. When the connection drops it connects again and says so (`onReconnect`): what was
 * notified meanwhile is lost, and the owners of the channels catch up from the tables.
 */
export class Listener {
  private client: pg.Client | undefined;
  private readonly handlers = new Map<string, Handler>();
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly log: Log,
    private readonly onReconnect: () => void,
  ) {}

  /** Starts listening on a channel; must be called before `start`. */
  on(channel: string, handler: Handler): void {
    this.handlers.set(channel, handler);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (n) => {
      try {
        this.handlers.get(n.channel)?.(n.payload ?? "");
      } catch (err) {
        this.log.error("a notification could not be handled", { channel: n.channel, err });
      }
    });
    client.on("error", (err) => this.lost(client, err));
    client.on("end", () => this.lost(client, new Error("the connection ended")));
    await client.connect();
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    this.client = client;
  }

  private lost(client: pg.Client, err: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    this.log.warn("lost the PostgreSQL notification connection; connecting again", { error: err.message });
    client.end().catch(() => undefined);
    let tries = 0;
    const again = () => {
      this.retry = undefined;
      if (this.closed) return;
      this.start().then(
        () => {
          if (tries > 0) this.log.info("listening to PostgreSQL again", { tries: tries + 1 });
          this.onReconnect();
        },
        (e: Error) => {
          // Said once an outage, not every second.
          if (tries++ === 0) this.log.warn("could not listen to PostgreSQL again; retrying every second", { error: e.message });
          this.retry = setTimeout(again, 1000);
        },
      );
    };
    this.retry = setTimeout(again, 200);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
