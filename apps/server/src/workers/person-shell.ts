import type { Guard, SessionInfo } from "@gatehouse/protocol";
import { nanoid } from "nanoid";
import type { EventHub } from "../store/index.js";
import type { Store } from "../store/index.js";
import type { WorkerRegistry } from "./worker-registry.js";
import { now } from "../clock.js";
import { auditEntry } from "../store/index.js";

/** What the person's command printed and how it ended (`session.shell`'s answer). */
export interface ShellRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export interface PersonShellOptions {
  registry: WorkerRegistry;
  hub: EventHub;
  store: Store;
  guard: (session: SessionInfo) => Guard;
  timeoutMs: number;
}

/**
 * A person's own `!command` (docs/design.md, "Protocol"): run on the session's worker without the gate, its output
 * published as it comes, stopped by the session's abort, and recorded whole (or as far as it
 * got) in the session's events and the audit log.
 */
export class PersonShell {
  private readonly running = new Map<string, Set<AbortController>>();

  constructor(private readonly options: PersonShellOptions) {}

  async run(session: SessionInfo, command: string, by: string): Promise<ShellRun> {
    const { hub, registry } = this.options;
    const commandId = nanoid();
    const base = { sessionId: session.id, commandId };
    const stop = this.track(session.id);
    let streamed = "";
    await this.audit(session, command, by);
    await hub.publish({ type: "shell_started", ...base, at: now(), command, by });
    try {
      const ran = await registry.dispatch(
        session.workerId,
        {
          sessionId: session.id,
          toolName: "shell_exec",
          args: { command },
          timeoutMs: this.options.timeoutMs,
          guard: this.options.guard(session),
          origin: "person",
        },
        stop.signal,
        (text) => {
          streamed += text;
          hub.notify({ type: "shell_output", ...base, at: now(), text });
        },
      );
      const out = { exitCode: ran.exitCode ?? null, stdout: ran.output, stderr: ran.stderr ?? "" };
      await hub.publish({ type: "shell_command", ...base, at: now(), command, exitCode: out.exitCode, output: out.stdout, stderr: out.stderr, by });
      return out;
    } catch (err) {
      // What came before the end is kept: the person sees it, and so does anyone who reads the session later.
      const why = stop.signal.aborted ? `aborted by ${String(stop.signal.reason)}; the process group was killed` : (err as Error).message;
      await hub.publish({
        type: "shell_command",
        ...base,
        at: now(),
        command,
        exitCode: null,
        output: `${streamed}${streamed === "" || streamed.endsWith("\n") ? "" : "\n"}[${why}]`,
        stderr: "",
        by,
      });
      if (stop.signal.aborted) return { exitCode: null, stdout: streamed, stderr: "" };
      throw err;
    } finally {
      const set = this.running.get(session.id);
      set?.delete(stop);
      if (set?.size === 0) this.running.delete(session.id);
    }
  }

  /** Stops the session's running commands; whether there were any. */
  abort(sessionId: string, by: string): boolean {
    const running = this.running.get(sessionId);
    if (!running || running.size === 0) return false;
    for (const c of running) c.abort(by);
    return true;
  }

  private track(sessionId: string): AbortController {
    const controller = new AbortController();
    let set = this.running.get(sessionId);
    if (!set) this.running.set(sessionId, (set = new Set()));
    set.add(controller);
    return controller;
  }

  private audit(session: SessionInfo, command: string, by: string): Promise<void> {
    const call = { tool: "shell_exec", args: { command } };
    return this.options.store.appendAudit(auditEntry(session, call, "user_shell", "typed by a person (!command), not gated", null, by));
  }
}
