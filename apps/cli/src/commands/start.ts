import { createNodeClient } from "@gatehouse/protocol/node";
import { closeClient } from "@gatehouse/protocol";
import { runTerminal, SessionController } from "@gatehouse/terminal";
import { CliError } from "../cli-error.js";
import { inThisCheckout, startLocal } from "../embedded.js";
import { sandboxNote } from "../sandbox-note.js";
import { sandboxSettings } from "../sandbox-flags.js";
import { modelChoice } from "../flags.js";
import type { OptionValues } from "../options.js";
import type { START_OPTIONS } from "./start-options.js";

const CHECKOUT_NOTE = "The work directory is this Gatehouse checkout itself: what you approve changes it (./gatehouse --demo plays in a throwaway copy).";

/** Where the embedded server's browser console is, and the token to sign in with (made for this run, on loopback only). */
function consoleNote(url: string, token: string): string {
  return `Browser console: ${url.replace(/^ws/, "http")}/ (sign in with the token ${token}; it lasts as long as this run).`;
}

/**
 * `gatehouse [--demo] [--dir DIR] [--model provider:model] [--scenario FILE] [--mode MODE] [--mcp FILE]`: a
 * server and a worker in this process and the terminal client on top. With no model configured,
 * the scripted model plays the demo tour (or the given scenario) and the screen says so.
 */
export async function startCommand(values: OptionValues<typeof START_OPTIONS>): Promise<number> {
  const mode = values.mode;
  if (!process.stdin.isTTY) throw new CliError("the terminal client needs a terminal; for scripts use `gatehouse run --prompt TEXT`");
  const local = await startLocal({
    demo: values.demo,
    dir: values.dir,
    dataDir: values["data-dir"],
    scenario: values.scenario,
    mcp: values.mcp,
    model: modelChoice(values),
    sandbox: sandboxSettings(values),
  });
  const client = createNodeClient({ url: local.url, token: local.clientToken });
  try {
    const session = await client.session.create.mutate({ workerId: local.workerId, ...(mode ? { mode } : {}) });
    const controller = new SessionController(client, session.id, local.url, session.mode);
    let banner = local.playsDemo
      ? `Gatehouse on ${local.dir}. No model is configured: the scripted demo model plays a tour of the gate (rules: ${local.rulesFile}).`
      : local.model === "scripted"
        ? `Gatehouse on ${local.dir}. The scripted model plays ${local.scenario}.`
        : `Gatehouse on ${local.dir} with the model ${local.model} (rules: ${local.rulesFile}).`;
    banner = `${banner} ${sandboxNote(local.sandbox)}`;
    if (!values.demo && inThisCheckout(local.dir)) banner = `${banner} ${CHECKOUT_NOTE}`;
    banner = `${banner}\n${consoleNote(local.url, local.clientToken)}`;
    if (local.playsDemo) void controller.following.then(() => controller.prompt("Show me what the gate does."));
    await runTerminal({ controller, banner });
  } catch (err) {
    throw err instanceof CliError ? err : new CliError((err as Error).message, "FAILED");
  } finally {
    await closeClient(client);
    await local.close();
  }
  return 0;
}
