import { parseArgs } from "node:util";
import { createLog } from "@gatehouse/log";
import { SandboxUnavailable, startWorker } from "@gatehouse/worker";
import { CliError } from "../cli-error.js";
import { existingDir, mcpServersFlag } from "../flags.js";
import { SANDBOX_FLAGS, sandboxSettings } from "../sandbox-flags.js";
import { TRUST_FLAGS, trustOptions } from "../trust-flags.js";

/** `gatehouse worker --server URL --token T --id ID --dir DIR [--mcp FILE] [--sandbox MODE] [--network on|off]`: runs until SIGINT or SIGTERM. */
export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      server: { type: "string" },
      token: { type: "string" },
      id: { type: "string" },
      dir: { type: "string" },
      mcp: { type: "string" },
      ...TRUST_FLAGS,
      ...SANDBOX_FLAGS,
    },
  });
  const token = values.token ?? process.env.GATEHOUSE_WORKER_TOKEN;
  for (const [flag, v] of [
    ["server", values.server],
    ["token", token],
    ["id", values.id],
  ] as const) {
    if (!v) throw new CliError(`missing --${flag}`);
  }
  const sandbox = sandboxSettings(values);
  const dir = existingDir("dir", values.dir ?? process.cwd());
  const log = createLog().child({ component: "worker" });
  const worker = await startWorker({
    server: values.server!,
    token: token!,
    id: values.id!,
    trust: trustOptions(values, process.env, (line) => process.stderr.write(`${JSON.stringify({ msg: line, worker: values.id })}\n`)),
    dir,
    mcpServers: mcpServersFlag(values.mcp, dir),
    log,
    sandbox,
  }).catch((err: unknown) => {
    if (err instanceof SandboxUnavailable) throw new CliError(err.message, 1);
    throw err;
  });
  log.info(`sandbox: ${worker.sandbox.active ? "on" : "OFF"} (${worker.sandbox.detail})`, { sandbox: worker.sandbox });
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await worker.close();
  return 0;
}
