import type { ApprovalRequired, GatehouseClient, GatehouseEvent, Mode, Presentation } from "@gatehouse/protocol";
import { applyEvent, emptyView, type SessionView } from "./session-view.js";

export type Connection = "connecting" | "online" | "reconnecting";

/** A person's answer to an approval prompt. */
export type Answer = { kind: "approve"; scope: "once" | "session" | "always"; pattern?: string } | { kind: "deny"; mode: "soft" | "hard"; feedback?: string };

export interface ControllerState {
  view: SessionView;
  connection: Connection;
  /** The last problem a person can act on, in one line; null when there is none. */
  problem: string | null;
}

/** The short form of a protocol error, in words a person can act on. */
export function describeError(err: unknown, url: string): string {
  const e = err as { message?: string; data?: { code?: string } };
  const code = e.data?.code;
  if (code === "UNAUTHORIZED" || code === "FORBIDDEN") return `the server at ${url} refused the token (${code})`;
  return e.message ?? String(err);
}

/** One session seen through one client: its events folded into a view, and the actions on it. */
export class SessionController {
  private state: ControllerState;
  private readonly listeners = new Set<() => void>();
  private subscription: { unsubscribe(): void } | null = null;
  private markFollowing!: () => void;
  /** Settles once the server follows the session for this client: no event after it is missed. */
  readonly following = new Promise<void>((resolve) => (this.markFollowing = resolve));

  constructor(
    private readonly client: GatehouseClient,
    readonly sessionId: string,
    readonly url: string,
    mode: Mode = "default",
  ) {
    this.state = { view: emptyView(mode, sessionId), connection: "connecting", problem: null };
  }

  /** Starts following the session's events; pending approvals arrive again on every (re)subscribe. */
  start(): void {
    this.subscription = this.client.agent.onEvents.subscribe(
      { sessionId: this.sessionId },
      {
        onStarted: () => {
          this.markFollowing();
          this.set({ connection: "online", problem: null });
        },
        onData: (d) => this.set({ view: applyEvent(this.state.view, d.data as GatehouseEvent) }),
        onError: (err) => this.set({ problem: describeError(err, this.url) }),
        onConnectionStateChange: (s) => {
          if (s.state === "connecting" && this.state.connection === "online") this.set({ connection: "reconnecting" });
          if (s.state === "connecting" && s.error) this.set({ problem: `cannot reach ${this.url}: ${s.error.message || "connection failed"}; retrying` });
          if (s.state === "pending") this.set({ connection: "online", problem: null });
        },
      },
    );
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }

  get snapshot(): ControllerState {
    return this.state;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  report(problem: string | null): void {
    this.set({ problem });
  }

  prompt(text: string): Promise<void> {
    return this.act(() => this.client.agent.prompt.mutate({ sessionId: this.sessionId, text }));
  }

  shell(command: string): Promise<void> {
    return this.act(() => this.client.session.shell.mutate({ sessionId: this.sessionId, command }));
  }

  setMode(mode: Mode): Promise<void> {
    return this.act(() => this.client.session.setMode.mutate({ sessionId: this.sessionId, mode }));
  }

  abort(): Promise<void> {
    return this.act(() => this.client.agent.abort.mutate({ sessionId: this.sessionId }));
  }

  answer(approval: ApprovalRequired, answer: Answer): Promise<void> {
    const ref = { sessionId: approval.sessionId, approvalId: approval.approvalId };
    return this.act(() =>
      answer.kind === "approve"
        ? this.client.tool.approve.mutate({ ...ref, scope: answer.scope, ...(answer.pattern ? { pattern: answer.pattern } : {}) })
        : this.client.tool.deny.mutate({ ...ref, mode: answer.mode, ...(answer.feedback ? { feedback: answer.feedback } : {}) }),
    );
  }

  /** The approval's presentation whole, for the pager. */
  async view(approval: ApprovalRequired): Promise<Presentation | null> {
    try {
      return await this.client.tool.view.query({ sessionId: approval.sessionId, approvalId: approval.approvalId });
    } catch (err) {
      this.set({ problem: describeError(err, this.url) });
      return approval.presentation;
    }
  }

  private async act(run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
      if (this.state.problem) this.set({ problem: null });
    } catch (err) {
      this.set({ problem: describeError(err, this.url) });
    }
  }

  private set(change: Partial<ControllerState>): void {
    this.state = { ...this.state, ...change };
    for (const l of this.listeners) l();
  }
}
