import type { Log } from "@gatehouse/log";
import { nanoid } from "nanoid";
import type pg from "pg";
import { isGatehouseErrorCode } from "@gatehouse/protocol";
import { GatehouseError } from "../errors.js";

export const MAILBOX_CHANNEL = "gatehouse_mailbox";

/** A request one instance sends another: what to do, and its arguments. */
export interface Request {
  kind: string;
  [field: string]: unknown;
}

type Letter =
  | { type: "request"; requestId: string; from: string; request: Request }
  | { type: "reply"; requestId: string; ok: true; value: unknown }
  | { type: "reply"; requestId: string; ok: false; code: string; message: string }
  | { type: "progress"; requestId: string; value: unknown }
  | { type: "signal"; request: Request };

/** The instance asked did not answer in time (it may be gone): BUSY, asked again it may answer. */
export class NoAnswerError extends GatehouseError {
  constructor(message: string) {
    super("BUSY", message);
    this.name = "NoAnswerError";
  }
}

/** Carries out a request; `progress` sends the asker something before the reply (a call's output as it comes). */
type Serve = (request: Request, progress: (value: unknown) => void) => Promise<unknown>;

interface Waiting {
  onProgress?: ((value: unknown) => void) | undefined;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Messages between instances, through the database: a letter is a row addressed to an instance,
 * and a notification (whose payload is the addressee) tells it to read its rows. Requests get
 * replies the same way; a request not answered in time fails rather than waits forever.
 */
export class Mailbox {
  private readonly waiting = new Map<string, Waiting>();
  private draining: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly instanceId: string,
    private readonly serve: Serve,
    private readonly log: Log,
  ) {}

  /** A notification arrived: read this instance's letters when it is the addressee. */
  notified(payload: string): void {
    if (payload === this.instanceId) this.drain();
  }

  /** Reads every letter addressed here, once at a time; a notification during a read makes another. */
  drain(): void {
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.read()
      .catch((err: unknown) => this.log.warn("could not read the mailbox", { err }))
      .finally(() => {
        this.draining = undefined;
        if (this.again) {
          this.again = false;
          this.drain();
        }
      });
  }

  private async read(): Promise<void> {
    const { rows } = await this.pool.query<{ id: number; body: Letter }>("DELETE FROM mailbox WHERE to_instance = $1 RETURNING id, body", [this.instanceId]);
    for (const { body } of rows.sort((a, b) => a.id - b.id)) this.open(body);
  }

  private open(letter: Letter): void {
    if (letter.type === "progress") return this.waiting.get(letter.requestId)?.onProgress?.(letter.value);
    if (letter.type === "reply") {
      const w = this.waiting.get(letter.requestId);
      if (!w) return;
      this.waiting.delete(letter.requestId);
      clearTimeout(w.timer);
      if (letter.ok) w.resolve(letter.value);
      else w.reject(new GatehouseError(isGatehouseErrorCode(letter.code) ? letter.code : "INTERNAL", letter.message));
      return;
    }
    if (letter.type === "signal") {
      this.serve(letter.request, () => undefined).catch((err: unknown) =>
        this.log.warn("a signal from another instance failed", { kind: letter.request.kind, err }),
      );
      return;
    }
    const { from, requestId } = letter;
    // Letters to the asker are sent one after another, so that they are read in the order they were written.
    let sent = Promise.resolve();
    const post = (reply: Letter) => (sent = sent.then(() => this.post(from, reply)));
    this.serve(letter.request, (value) => void post({ type: "progress", requestId, value })).then(
      (value) => post({ type: "reply", requestId, ok: true, value: value ?? null }),
      (err: unknown) => {
        const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
        const code = e.cause instanceof GatehouseError ? e.cause.code : err instanceof GatehouseError ? err.code : "INTERNAL";
        return post({ type: "reply", requestId, ok: false, code, message: String(e.message ?? err) });
      },
    );
  }

  private async send(to: string, letter: Letter): Promise<void> {
    await this.pool.query(
      `WITH letter AS (INSERT INTO mailbox (to_instance, body) VALUES ($1, $2) RETURNING id) SELECT pg_notify('${MAILBOX_CHANNEL}', $1) FROM letter`,
      [to, letter],
    );
  }

  private post(to: string, letter: Letter): Promise<void> {
    return this.send(to, letter).catch((err: unknown) => this.log.warn("could not send to another instance", { to, err }));
  }

  /** Asks another instance to do something and waits for its reply, at most `timeoutMs`; `onProgress` gets what comes before it. */
  request<T>(to: string, request: Request, timeoutMs: number, onProgress?: (value: unknown) => void): Promise<T> {
    const requestId = nanoid();
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(requestId);
        reject(new NoAnswerError(`server instance ${to} did not answer a ${request.kind} request within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(requestId, { onProgress, resolve: resolve as (v: unknown) => void, reject, timer });
      this.send(to, { type: "request", requestId, from: this.instanceId, request }).catch((err: Error) => {
        clearTimeout(timer);
        this.waiting.delete(requestId);
        reject(err);
      });
    });
  }

  /** Tells another instance something, without a reply. */
  signal(to: string, request: Request): Promise<void> {
    return this.post(to, { type: "signal", request });
  }

  close(): void {
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.reject(new GatehouseError("ABORTED", "the server is stopping"));
    }
    this.waiting.clear();
  }
}
