import type { ApprovalRequired, GatehouseEvent, WorkerInfo } from "@gatehouse/protocol";
import { closeClient, createGatehouseClient, type GatehouseClient } from "@gatehouse/protocol/client";
import { ConsoleState } from "./state.js";

export type Link = "signed-out" | "connecting" | "online" | "reconnecting";
export interface Identity {
  name: string;
  role: "admin" | "approver" | "viewer";
  workers: string[];
  shell: boolean;
}

const TOKEN_KEY = "gatehouse.token";

/** The server that served this page, over the same scheme: ws beside http, wss beside https. */
export function serverUrl(loc: Location = window.location): string {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}`;
}

/** A tRPC error's words, or the error's message. */
export function errorText(err: unknown): string {
  const e = err as { message?: string; data?: { code?: string } };
  if (e?.data?.code === "UNAUTHORIZED") return "the server refused this token";
  return e?.message ?? String(err);
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    p.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });
}

/**
 * One signed-in console: the protocol client, the state built from its event stream, and the
 * connection's state. Views read it and re-render on `onChange`.
 */
export class Console {
  readonly state = new ConsoleState();
  workers: WorkerInfo[] = [];
  link: Link = "signed-out";
  /** Set once the server has accepted the token; the views show only then. */
  signedIn = false;
  /** The last problem worth showing (a refused call, a lost stream), cleared by the next success. */
  problem: string | null = null;
  client: GatehouseClient | null = null;
  /** Who the token is; the views offer only what its role allows (the server checks again). */
  me: Identity | null = null;
  private version = 0;
  private readonly listeners = new Set<() => void>();
  private scheduled = false;
  private sub: { unsubscribe(): void } | null = null;
  /** The last event id seen, so a stream the server ended resumes where it stopped. */
  private lastEventId = "0";

  constructor(private readonly url = serverUrl()) {}

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get changes(): number {
    return this.version;
  }

  /** Coalesces bursts (streamed text) into one render a frame. */
  changed = (): void => {
    this.version++;
    if (this.scheduled) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      for (const l of this.listeners) l();
    };
    if (typeof requestAnimationFrame === "function" && document.visibilityState === "visible") requestAnimationFrame(run);
    else setTimeout(run, 0);
  };

  static savedToken(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  /** Connects with a token; resolves with an error to show, or null once signed in. */
  async signIn(token: string): Promise<string | null> {
    this.link = "connecting";
    this.changed();
    const client = createGatehouseClient({
      url: this.url,
      token,
      retryDelayMs: (n) => Math.min(3000, 250 * 2 ** n),
      onOpen: () => {
        if (this.client !== client || !this.signedIn) return;
        this.link = "online";
        void this.refresh();
        this.changed();
      },
      onClose: () => {
        if (this.client !== client || !this.signedIn) return;
        this.link = "reconnecting";
        this.changed();
      },
    });
    this.client = client;
    try {
      this.me = await withTimeout(client.auth.whoami.query(), 10_000, `cannot reach the server at ${this.url}`);
      this.state.putSessions(await client.session.list.query());
    } catch (err) {
      this.client = null;
      this.link = "signed-out";
      void closeClient(client);
      this.changed();
      return errorText(err);
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    this.signedIn = true;
    this.link = "online";
    this.subscribe(client);
    await this.refresh();
    return null;
  }

  signOut(): void {
    sessionStorage.removeItem(TOKEN_KEY);
    this.sub?.unsubscribe();
    this.lastEventId = "0";
    if (this.client) void closeClient(this.client);
    this.client = null;
    this.signedIn = false;
    this.link = "signed-out";
    this.changed();
  }

  /**
   * Every event since the server started, then live ones; after a reconnect, what was missed. A
   * stream the server ends (a backlog it would not hold) is taken up again from the last id.
   */
  private subscribe(client: GatehouseClient): void {
    this.sub = client.agent.onEvents.subscribe(
      { lastEventId: this.lastEventId },
      {
        onData: (d) => {
          if (d.id) this.lastEventId = d.id;
          const event = d.data as GatehouseEvent;
          this.state.apply(event);
          if (event.type === "worker_connected" || event.type === "worker_disconnected" || event.type === "mcp_server") void this.refresh();
          this.changed();
        },
        onError: (err) => {
          const code = (err as { data?: { code?: string } }).data?.code;
          const final = code === "UNAUTHORIZED" || code === "FORBIDDEN";
          this.problem = `the event stream stopped: ${errorText(err)}${final ? "" : "; resuming"}`;
          this.changed();
          if (!final) setTimeout(() => this.client === client && this.subscribe(client), 1000);
        },
      },
    );
  }

  /** Workers and sessions again, as the stream does not carry a worker's tools. */
  async refresh(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      const [workers, sessions] = await Promise.all([client.workers.list.query(), client.session.list.query()]);
      this.workers = workers.sort((a, b) => a.id.localeCompare(b.id));
      this.state.putSessions(sessions);
      this.changed();
    } catch (err) {
      this.report(err);
    }
  }

  /** Runs a call, shows its error if it fails; resolves with its result or undefined. */
  async call<T>(fn: (c: GatehouseClient) => Promise<T>): Promise<T | undefined> {
    if (!this.client) return undefined;
    try {
      const out = await fn(this.client);
      if (this.problem) {
        this.problem = null;
        this.changed();
      }
      return out;
    } catch (err) {
      this.report(err);
      return undefined;
    }
  }

  report(err: unknown): void {
    this.problem = errorText(err);
    this.changed();
  }

  /** Whether the token may `use` (prompt, answer, change) or only watch sessions on a worker, as the server decides. */
  may(workerId: string, need: "use" | "shell" | "admin"): boolean {
    const me = this.me;
    if (!me) return false;
    if (me.role === "admin") return true;
    if (need === "admin" || me.role === "viewer") return false;
    if (!me.workers.includes("*") && !me.workers.includes(workerId)) return false;
    return need === "use" || me.shell;
  }

  /** Pending approvals, oldest first; of one session and its subagents when given. */
  pending(sessionId?: string): ApprovalRequired[] {
    const all = [...this.state.approvals.values()];
    if (!sessionId) return all;
    const family = this.state.family(sessionId);
    return all.filter((a) => family.has(a.sessionId));
  }

  /** Drops an approval that another client answered first. */
  forget(approvalId: string): void {
    this.state.approvals.delete(approvalId);
    this.changed();
  }
}
