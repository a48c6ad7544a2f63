import { backoffMs, type ApprovalRequired, type Decision, type GatehouseClient, type GatehouseEvent, type Mode, type Presentation } from "@gatehouse/protocol";
import { applyEvent, emptyView, interrupted, notice, type SessionView } from "./session-view.js";

export type Connection = "connecting" | "online" | "reconnecting";

/** A person's answer to an approval prompt. */
export type Answer =
  ({ kind: "approve"; scope: "once" | "session" | "always"; patterns?: string[] } & EditedAnswer) | { kind: "deny"; mode: "soft" | "hard"; feedback?: string };

/** An approval of the call as the person edited it; a critical edited call runs only with `confirmCritical`. */
export interface EditedAnswer {
  edited?: Record<string, unknown>;
  confirmCritical?: boolean;
}

/** What the gate makes of an edited call before it is approved, or why the edit is refused. */
export type EditCheck = { decision: Decision; suggestedPatterns: string[] } | { error: string };

export interface ControllerState {
  view: SessionView;
  connection: Connection;
  /** What keeps the client from the server right now, in one line; null when connected. */
  problem: string | null;
  /** The session no longer exists on the server (it restarted without keeping it): `/new` starts another. */
  gone: boolean;
}

const codeOf = (err: unknown): string | undefined => (err as { data?: { code?: string } }).data?.code;

/** Why a connection attempt failed, in the socket's words (`connect ECONNREFUSED ...`) rather than the client library's. */
function whyClosed(err: Error): string {
  const cause = (err as { cause?: { message?: string; error?: { message?: string } } }).cause;
  return cause?.error?.message || cause?.message || err.message || "connection failed";
}

/** The short form of a protocol error, in words a person can act on. */
export function describeError(err: unknown, url: string): string {
  const e = err as { message?: string; cause?: { name?: string; message?: string } };
  const code = codeOf(err);
  if (code === "UNAUTHORIZED" || code === "FORBIDDEN") return `the server at ${url} refused the token (${code})`;
  // A request cut off with its connection has no answer of the server's, only the client's "Unknown error".
  if (code === undefined && (e.cause?.name === "TRPCWebSocketClosedError" || e.message === "Unknown error"))
    return `the connection to ${url} closed before the server answered`;
  return e.message ?? String(err);
}

/**
 * One session seen through one client: its events folded into a view, and the actions on it.
 * It follows the session across lost connections and server restarts: it says what happened,
 * resumes from the last event it saw, and reads the session's state again; a session the server
 * no longer has is said to be gone, and `newSession` starts another on the same worker.
 */
export class SessionController {
  private state: ControllerState;
  private readonly listeners = new Set<() => void>();
  private subscription: { unsubscribe(): void } | null = null;
  private id: string;
  private workerId: string | null = null;
  /** Whether the worker's failing MCP servers were told as the session started. */
  private mcpTold = false;
  private lastEventId: string | null = null;
  private attempts = 0;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private markFollowing!: () => void;
  /** Settles once the server follows the session for this client: no event after it is missed. */
  readonly following = new Promise<void>((resolve) => (this.markFollowing = resolve));

  constructor(
    private readonly client: GatehouseClient,
    sessionId: string,
    readonly url: string,
    mode: Mode = "default",
  ) {
    this.id = sessionId;
    this.state = { view: emptyView(mode, sessionId), connection: "connecting", problem: null, gone: false };
  }

  get sessionId(): string {
    return this.id;
  }

  /** Starts following the session's events; pending approvals arrive again on every (re)subscribe. */
  start(): void {
    this.subscribe();
    void this.readState();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    this.subscription?.unsubscribe();
  }

  private subscribe(): void {
    this.subscription?.unsubscribe();
    const sessionId = this.id;
    const mine = () => sessionId === this.id && !this.stopped;
    this.subscription = this.client.agent.onEvents.subscribe(
      { sessionId, lastEventId: this.lastEventId },
      {
        onStarted: () => {
          if (!mine()) return;
          this.markFollowing();
          const back = this.state.connection === "reconnecting";
          this.attempts = 0;
          this.set({ connection: "online", problem: null });
          if (back) {
            this.say("info", `reconnected to ${this.url}; resuming after the last event seen`);
            void this.readState();
          }
        },
        onData: (d) => {
          if (!mine()) return;
          this.lastEventId = d.id;
          this.set({ view: applyEvent(this.state.view, d.data as GatehouseEvent) });
        },
        onError: (err) => mine() && this.failed(err),
        onConnectionStateChange: (s) => {
          if (!mine() || s.state !== "connecting") return;
          if (this.state.connection === "online") {
            this.set({ connection: "reconnecting" });
            this.say("error", `lost the connection to ${this.url}${s.error ? ` (${whyClosed(s.error)})` : ""}; reconnecting`);
          }
          if (s.error) {
            this.attempts++;
            this.set({ problem: `cannot reach ${this.url}: ${whyClosed(s.error)}; retrying (attempt ${this.attempts})` });
          }
        },
      },
    );
  }

  /** The subscription ended with an error: the session is gone, the token refused, or (else) it is tried again. */
  private failed(err: unknown): void {
    const code = codeOf(err);
    if (code === "NOT_FOUND") return this.markGone();
    this.say("error", describeError(err, this.url));
    if (code === "UNAUTHORIZED" || code === "FORBIDDEN") return;
    this.set({ connection: "reconnecting" });
    const delay = backoffMs(this.attempts++, 200, 5000);
    this.retry = setTimeout(() => this.subscribe(), delay);
  }

  private markGone(): void {
    if (this.state.gone) return;
    const how = this.workerId ? `/new starts a new session on worker ${this.workerId}; ` : "";
    this.set({
      gone: true,
      connection: "online",
      problem: null,
      view: interrupted(
        this.state.view,
        "error",
        `session ${this.id} no longer exists on ${this.url}: the server restarted without keeping it. ${how}Ctrl+C quits.`,
      ),
    });
  }

  /** Reads the session as the server has it: which worker it is on, or that the server no longer has it. */
  private async readState(): Promise<void> {
    let workerId: string;
    try {
      workerId = (await this.client.session.get.query({ sessionId: this.id })).session.workerId;
      this.workerId = workerId;
    } catch (err) {
      if (codeOf(err) === "NOT_FOUND") this.markGone();
      return;
    }
    if (!this.mcpTold) await this.tellMcpProblems(workerId);
  }

  /** The worker's MCP servers that are failing as the session starts; later changes come as events. */
  private async tellMcpProblems(workerId: string): Promise<void> {
    this.mcpTold = true;
    try {
      const worker = (await this.client.workers.list.query()).find((w) => w.id === workerId);
      for (const m of worker?.mcpServers ?? [])
        if (m.problem !== null)
          this.set({
            view: applyEvent(this.state.view, {
              type: "mcp_server",
              sessionId: this.id,
              at: new Date().toISOString(),
              workerId,
              server: m.name,
              problem: m.problem,
            }),
          });
    } catch (err) {
      this.say("warn", `could not read the worker's MCP servers: ${describeError(err, this.url)}`);
    }
  }

  /** A new session on the same worker and mode, after the old one is gone; the transcript stays above. */
  async newSession(): Promise<void> {
    if (!this.workerId) return this.say("error", "the session's worker is not known, so no new session can be started here; quit and start again");
    try {
      const session = await this.client.session.create.mutate({ workerId: this.workerId, mode: this.state.view.mode });
      this.id = session.id;
      this.lastEventId = null;
      const view = { ...this.state.view, sessionId: session.id, pending: [], subagents: {}, turnRunning: false, mode: session.mode };
      this.set({ gone: false, view: notice(view, "info", `new session ${session.id} on worker ${session.workerId}`) });
      this.subscribe();
    } catch (err) {
      this.say("error", describeError(err, this.url));
    }
  }

  get snapshot(): ControllerState {
    return this.state;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A line in the transcript, where it stays to be read. */
  say(tone: "info" | "warn" | "error", text: string): void {
    this.set({ view: notice(this.state.view, tone, text) });
  }

  report(problem: string): void {
    this.say("error", problem);
  }

  prompt(text: string): Promise<void> {
    return this.act(() => this.client.agent.prompt.mutate({ sessionId: this.id, text }));
  }

  shell(command: string): Promise<void> {
    return this.act(() => this.client.session.shell.mutate({ sessionId: this.id, command }));
  }

  setMode(mode: Mode): Promise<void> {
    return this.act(() => this.client.session.setMode.mutate({ sessionId: this.id, mode }));
  }

  /**
   * Aborts the running turn and the person's running commands. When the server says nothing ran
   * (the turn ended while the client was away, or with a server that restarted), the view stops
   * showing one.
   */
  abort(): Promise<void> {
    return this.act(async () => {
      const { aborted } = await this.client.agent.abort.mutate({ sessionId: this.id });
      const view = this.state.view;
      if (!aborted && view.turnRunning && view.items.every((i) => i.kind !== "shell" || !i.running))
        this.set({ view: interrupted(view, "warn", "no turn is running on the server; it ended while this client was not following it") });
    });
  }

  answer(approval: ApprovalRequired, answer: Answer): Promise<void> {
    const ref = { sessionId: approval.sessionId, approvalId: approval.approvalId };
    return this.act(() =>
      answer.kind === "approve"
        ? this.client.tool.approve.mutate({
            ...ref,
            scope: answer.scope,
            ...(answer.patterns ? { patterns: answer.patterns } : {}),
            ...(approval.digest ? { digest: approval.digest } : {}),
            ...(answer.edited ? { editedArguments: answer.edited } : {}),
            ...(answer.confirmCritical ? { confirmCritical: true } : {}),
          })
        : this.client.tool.deny.mutate({ ...ref, mode: answer.mode, ...(answer.feedback ? { feedback: answer.feedback } : {}) }),
    );
  }

  /** What the gate makes of the call as the person edited it, shown before they approve it. */
  async checkEdit(approval: ApprovalRequired, edited: Record<string, unknown>): Promise<EditCheck> {
    try {
      return await this.client.tool.checkEdit.query({ sessionId: approval.sessionId, approvalId: approval.approvalId, editedArguments: edited });
    } catch (err) {
      return { error: describeError(err, this.url) };
    }
  }

  /** The approval's presentation whole, for the pager. */
  async view(approval: ApprovalRequired): Promise<Presentation | null> {
    try {
      return await this.client.tool.view.query({ sessionId: approval.sessionId, approvalId: approval.approvalId });
    } catch (err) {
      this.say("error", describeError(err, this.url));
      return approval.presentation;
    }
  }

  private async act(run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (err) {
      if (codeOf(err) === "NOT_FOUND" && !this.state.gone) await this.readState();
      if (!this.state.gone) this.say("error", describeError(err, this.url));
    }
  }

  private set(change: Partial<ControllerState>): void {
    this.state = { ...this.state, ...change };
    for (const l of this.listeners) l();
  }
}
