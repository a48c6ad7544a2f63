import path from "node:path";
import { parseArgs } from "node:util";
import { Mode } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { closeClient } from "@gatehouse/protocol";
import { runTerminal, SessionController } from "@gatehouse/terminal";
import { CliError } from "../cli-error.js";
import { startLocal } from "../embedded.js";

export const START_OPTIONS = {
  demo: { type: "boolean" },
  dir: { type: "string" },
  "data-dir": { type: "string" },
  scenario: { type: "string" },
  mode: { type: "string" },
} as const;

export function parseMode(value: string | undefined): Mode | undefined {
  if (value === undefined) return undefined;
  const parsed = Mode.safeParse(value);
  if (!parsed.success) throw new CliError(`--mode must be one of ${Mode.options.join(", ")} (got "${value}")`);
  return parsed.data;
}

/**
 * `gatehouse [--demo] [--dir DIR] [--scenario FILE] [--mode MODE] [--data-dir DIR]`: a server and
 * a worker in this process and the terminal client on top. No model is configured yet, so the
 * scripted model plays the demo tour (or the given scenario) and the screen says so.
 */
export async function startCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: START_OPTIONS });
  const mode = parseMode(values.mode);
  if (!process.stdin.isTTY) throw new CliError("the terminal client needs a terminal; for scripts use `gatehouse run --prompt TEXT`");
  const local = await startLocal({ demo: values.demo, dir: values.dir, dataDir: values["data-dir"], scenario: values.scenario });
  const client = createNodeClient({ url: local.url, token: local.clientToken });
  try {
    const session = await client.session.create.mutate({ workerId: local.workerId, ...(mode ? { mode } : {}) });
    const controller = new SessionController(client, session.id, local.url, session.mode);
    const banner = local.playsDemo
      ? `Gatehouse on ${local.dir}. No model is configured: the scripted demo model plays a tour of the gate (rules: ${path.join(local.dataDir, "workers", "demo", "permissions.jsonc")}).`
      : `Gatehouse on ${local.dir}. The scripted model plays ${local.scenario}.`;
    if (local.playsDemo) setTimeout(() => void controller.prompt("Show me what the gate does."), 300);
    await runTerminal({ controller, banner });
  } finally {
    await closeClient(client);
    await local.close();
  }
  return 0;
}
