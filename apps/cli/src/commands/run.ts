import readline from "node:readline/promises";
import {
  approvalMark,
  closeClient,
  describeMark,
  inSight,
  safePresentation,
  SCREEN_LIMITS,
  type ApprovalRequired,
  type GatehouseClient,
  type GatehouseEvent,
  type Mode,
} from "@gatehouse/protocol";
import { describeCall } from "@gatehouse/client-text";
import { CliError } from "../cli-error.js";
import { startLocal } from "../embedded.js";
import { connectClient } from "../remote.js";
import { TurnPrinter } from "../turn-printer.js";
import { modelChoice } from "../flags.js";
import type { OptionValues } from "../options.js";
import type { RUN_OPTIONS } from "./run-options.js";
import { CLIENT_TOKEN, requiredToken } from "../token-flags.js";
import { sandboxSettings } from "../sandbox-flags.js";
import { trustOptions } from "../trust-flags.js";

export const RUN_EXIT = { completed: 0, error: 1, denied: 3 } as const;

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

/** Asks on the terminal, one line per approval: y approves once, anything else denies. */
async function askOnTerminal(client: GatehouseClient, a: ApprovalRequired): Promise<void> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  const shown = a.presentation ? inSight(safePresentation(a.presentation).content.replace(/\n$/, ""), SCREEN_LIMITS) : null;
  if (shown) process.stderr.write(`${shown.text.replace(/^/gm, "  | ")}\n`);
  for (const line of describeMark(approvalMark(a, shown?.cuts))) process.stderr.write(`  ! ${line}\n`);
  const answer = await rl.question(`approve ${describeCall(a.toolName, a.arguments, 200)}? [y/N] `);
  rl.close();
  const ref = { sessionId: a.sessionId, approvalId: a.approvalId };
  await (answer.trim().toLowerCase() === "y"
    ? client.tool.approve.mutate({ ...ref, ...(a.digest ? { digest: a.digest } : {}) })
    : client.tool.deny.mutate({ ...ref, feedback: "denied at the terminal" }));
}

/**
 * `gatehouse run --prompt TEXT [--mode MODE] [--json]`: one turn, printed as lines, then exits 0
 * (completed), 3 (a call was denied) or 1 (error). Without a terminal, asks are denied (strict).
 */
export async function runCommand(values: RunValues): Promise<number> {
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const mode: Mode = values.mode ?? (interactive ? "default" : "strict");
  const where = await target(values);
  try {
    const session = await where.client.session.create.mutate({ workerId: where.workerId, mode, ...where.session });
    const printer = new TurnPrinter((line) => process.stdout.write(`${line}\n`), values.json === true, session.id);
    let started!: () => void;
    const subscribed = new Promise<void>((resolve) => (started = resolve));
    const ended = new Promise<Extract<GatehouseEvent, { type: "turn_ended" }>>((resolve) => {
      const sub = where.client.agent.onEvents.subscribe(
        { sessionId: session.id },
        {
          onStarted: () => started(),
          onData: ({ id, data }) => {
            const e = data as GatehouseEvent;
            printer.print(id, e);
            if (e.type === "tool_approval_required" && interactive) void askOnTerminal(where.client, e);
            if (e.type === "turn_ended" && e.sessionId === session.id) {
              sub.unsubscribe();
              resolve(e);
            }
          },
        },
      );
    });
    await subscribed;
    await where.client.agent.prompt.mutate({ sessionId: session.id, text: values.prompt });
    const end = await ended;
    if (printer.error || end.reason === "error" || end.reason === "step_limit") return RUN_EXIT.error;
    if (printer.denied.length > 0 || end.reason === "rejected") {
      if (!values.json) process.stderr.write(`denied (${printer.denied.length}):\n${printer.denied.map((d) => `  ${d}`).join("\n")}\n`);
      return RUN_EXIT.denied;
    }
    return end.reason === "completed" ? RUN_EXIT.completed : RUN_EXIT.error;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError((err as Error).message, 1);
  } finally {
    await where.close();
  }
}
