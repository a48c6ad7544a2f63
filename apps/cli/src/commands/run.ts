import { closeClient, type ApprovalRequired, type GatehouseClient, type GatehouseEvent, type Mode } from "@gatehouse/protocol";
import { describeCall } from "@gatehouse/client-text";
import { CliError } from "../cli-error.js";
import { startLocal } from "../embedded.js";
import { connectClient } from "../remote.js";
import { TerminalQuestions } from "../terminal-questions.js";
import { TurnPrinter } from "../turn-printer.js";
import { modelChoice } from "../flags.js";
import type { OptionValues } from "../options.js";
import type { RUN_OPTIONS } from "./run-options.js";
import { CLIENT_TOKEN, requiredToken } from "../token-flags.js";
import { sandboxSettings } from "../sandbox-flags.js";
import { trustOptions } from "../trust-flags.js";

/** `gatehouse run`'s exit codes (2, a usage error, is the CLI's own). */
export const RUN_EXIT = { completed: 0, error: 1, denied: 3, unanswered: 4 } as const;

interface Target {
  client: GatehouseClient;
  workerId: string;
  /** What the session is created with besides its worker and mode. */
  session: { model?: string; scenario?: string };
  close(): Promise<void>;
}

type RunValues = OptionValues<typeof RUN_OPTIONS>;

/** The server the turn runs on: a remote one (`--server`), or one embedded with its worker. */
async function target(flags: RunValues): Promise<Target> {
  if (flags.server) {
    const token = requiredToken(flags, CLIENT_TOKEN);
    if (!flags.worker) throw new CliError("missing --worker: the worker to run the session on");
    const client = await connectClient(flags.server, token, trustOptions(flags));
    // A scenario is played by the scripted model, on the server: the file is the server's, named as given.
    const session = flags.scenario ? { model: "scripted", scenario: flags.scenario } : {};
    return { client, workerId: flags.worker, session, close: () => closeClient(client) };
  }
  const local = await startLocal({
    dir: flags.dir,
    dataDir: flags["data-dir"],
    scenario: flags.scenario,
    mcp: flags.mcp,
    model: modelChoice(flags),
    sandbox: sandboxSettings(flags),
    tour: false,
  });
  const client = await connectClient(local.url, local.clientToken).catch(async (err: unknown) => {
    await local.close();
    throw err;
  });
  return { client, workerId: local.workerId, session: {}, close: async () => (await closeClient(client), await local.close()) };
}

/** What a run without a terminal says of a call that asks, when it does not wait for another client. */
const nobodyHere = (a: ApprovalRequired) =>
  `nobody can answer ${describeCall(a.toolName, a.arguments, 200)} here: there is no terminal. The turn is aborted; ` +
  `--wait waits for another client to answer, --mode strict denies what asks\n`;

/** How a run meets a call that asks: on its terminal, by waiting for another client, or by giving up on the turn. */
interface Asker {
  ask(a: ApprovalRequired): void;
  resolved(approvalId: string): void;
  print(write: () => void): void;
  close(): void;
}

function askerFor(client: GatehouseClient, interactive: boolean, wait: boolean, giveUp: (a: ApprovalRequired) => void): Asker {
  if (interactive) return new TerminalQuestions(client);
  const ask = wait
    ? (a: ApprovalRequired) =>
        process.stderr.write(
          `waiting for another client to answer ${describeCall(a.toolName, a.arguments, 200)} (approval ${a.approvalId} of session ${a.sessionId})\n`,
        )
    : giveUp;
  return { ask, resolved: () => undefined, print: (write) => write(), close: () => undefined };
}

/** The worker's MCP servers that are failing as the turn starts, on stderr; later changes come as events. */
async function tellMcpProblems(client: GatehouseClient, workerId: string, sessionId: string, printer: TurnPrinter): Promise<void> {
  const worker = (await client.workers.list.query()).find((w) => w.id === workerId);
  for (const m of worker?.mcpServers ?? [])
    if (m.problem !== null) printer.print("", { type: "mcp_server", sessionId, at: new Date().toISOString(), workerId, server: m.name, problem: m.problem });
}

/**
 * `gatehouse run --prompt TEXT [--mode MODE] [--json] [--wait]`: one turn, printed as lines, then
 * exits with a RUN_EXIT code. Without a terminal, what asks is denied (strict) unless a mode is
 * given; then an ask ends the run (4) unless `--wait` waits for another client to answer it.
 */
export async function runCommand(values: RunValues): Promise<number> {
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const wait = values.wait === true;
  const mode: Mode = values.mode ?? (interactive || wait ? "default" : "strict");
  const where = await target(values);
  let unanswered: ApprovalRequired | null = null;
  try {
    const session = await where.client.session.create.mutate({ workerId: where.workerId, mode, ...where.session });
    // A turn that could not be aborted is not waited for.
    let stop!: (err: unknown) => void;
    const unstoppable = new Promise<never>((_, reject) => (stop = reject));
    const giveUp = (a: ApprovalRequired) => {
      if (unanswered) return;
      unanswered = a;
      process.stderr.write(`gatehouse: ${nobodyHere(a)}`);
      void where.client.agent.abort.mutate({ sessionId: session.id }).catch((err: unknown) => stop(err));
    };
    const asker = askerFor(where.client, interactive, wait, giveUp);
    const printer = new TurnPrinter(
      (line) => asker.print(() => process.stdout.write(`${line}\n`)),
      values.json === true,
      session.id,
      (line) => asker.print(() => process.stderr.write(`${line}\n`)),
    );
    let started!: () => void;
    const subscribed = new Promise<void>((resolve) => (started = resolve));
    const ended = new Promise<Extract<GatehouseEvent, { type: "turn_ended" }>>((resolve) => {
      const sub = where.client.agent.onEvents.subscribe(
        { sessionId: session.id },
        {
          onStarted: () => started(),
          onData: ({ id, data }) => {
            const e = data as GatehouseEvent;
            if (e.type === "tool_approval_resolved") asker.resolved(e.approvalId);
            printer.print(id, e);
            if (e.type === "tool_approval_required") asker.ask(e);
            if (e.type === "turn_ended" && e.sessionId === session.id) {
              asker.close();
              sub.unsubscribe();
              resolve(e);
            }
          },
        },
      );
    });
    await subscribed;
    await tellMcpProblems(where.client, where.workerId, session.id, printer);
    await where.client.agent.prompt.mutate({ sessionId: session.id, text: values.prompt });
    const end = await Promise.race([ended, unstoppable]);
    if (unanswered) return RUN_EXIT.unanswered;
    if (printer.error || end.reason === "error" || end.reason === "step_limit") return RUN_EXIT.error;
    if (printer.denied.length > 0 || end.reason === "rejected") {
      if (!values.json) process.stderr.write(`denied (${printer.denied.length}):\n${printer.denied.map((d) => `  ${d}`).join("\n")}\n`);
      return RUN_EXIT.denied;
    }
    return end.reason === "completed" ? RUN_EXIT.completed : RUN_EXIT.error;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError((err as Error).message, "FAILED");
  } finally {
    await where.close();
  }
}
