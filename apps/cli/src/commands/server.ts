import { parseArgs } from "node:util";
import { guardProcess, loadServerConfig, startServer, streamLog, watchConfig } from "@gatehouse/server";
import { CliError } from "../cli-error.js";
import { MODEL_FLAGS, modelChoice } from "../flags.js";

/** `gatehouse server`: runs until SIGINT or SIGTERM. */
export async function serverCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      "data-dir": { type: "string" },
      scenario: { type: "string" },
      "approval-timeout-ms": { type: "string" },
      ...MODEL_FLAGS,
    },
  });
  const num = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new CliError(`--${flag} must be a whole number (got "${v}")`);
    return Number(v);
  };
  const overrides = {
    port: num("port", values.port),
    host: values.host,
    dataDir: values["data-dir"],
    scenario: values.scenario,
    approvalTimeoutMs: num("approval-timeout-ms", values["approval-timeout-ms"]),
    ...modelChoice(values),
  };
  const config = loadServerConfig(values.config, overrides);
  const log = streamLog();
  guardProcess(log);
  const server = await startServer(config, { log });
  const stopWatching = values.config ? watchConfig(values.config, () => loadServerConfig(values.config, overrides), server, log) : () => undefined;
  process.stdout.write(`${JSON.stringify({ msg: "gatehouse server listening", url: server.url, port: server.port, dataDir: config.dataDir, model: config.model, ...(server.fingerprint ? { fingerprint: server.fingerprint } : {}) })}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  stopWatching();
  await server.close();
  return 0;
}
