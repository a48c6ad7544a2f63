import { createLog } from "@gatehouse/log";
import { AgentsFolderRefusedError, startWorker } from "@gatehouse/worker";
import { CliError } from "../cli-error.js";
import { existingDir } from "../flags.js";
import { mcpServersFlag } from "../mcp-flag.js";
import type { OptionValues } from "../options.js";
import type { WORKER_OPTIONS } from "./worker-options.js";
import { requiredToken, WORKER_TOKEN } from "../token-flags.js";
import { sandboxRefusal, sandboxSettings } from "../sandbox-flags.js";
import { trustOptions } from "../trust-flags.js";

/** `gatehouse worker`: registers with a server and runs its tool calls in a folder until SIGINT or SIGTERM. */
export async function workerCommand(values: OptionValues<typeof WORKER_OPTIONS>): Promise<number> {
  const dir = existingDir("dir", values.dir ?? process.cwd());
  const log = createLog().child({ component: "worker" });
  const say = (line: string) => process.stderr.write(`${JSON.stringify({ msg: line, worker: values.id })}\n`);
  const worker = await startWorker({
    server: values.server,
    token: requiredToken(values, WORKER_TOKEN, say),
    id: values.id,
    trust: trustOptions(values, say),
    dir,
    mcpServers: mcpServersFlag(values.mcp, dir),
    ...(values.agents ? { agentsDir: values.agents } : {}),
    log,
    sandbox: sandboxSettings(values),
    ownSecrets: [values["token-file"], values.mcp, ...values.protect].filter((f): f is string => f !== undefined),
  }).catch((err: unknown) => {
    if (err instanceof AgentsFolderRefusedError) throw new CliError(err.message, "FAILED");
    throw sandboxRefusal(err);
  });
  log.info(`sandbox: ${worker.sandbox.active ? "on" : "OFF"} (${worker.sandbox.detail})`, { sandbox: worker.sandbox });
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await worker.close();
  return 0;
}
