import { parseArgs } from "node:util";
import { loadServerConfig, startServer } from "@gatehouse/server";
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
  const config = loadServerConfig(values.config, {
    port: num("port", values.port),
    host: values.host,
    dataDir: values["data-dir"],
    scenario: values.scenario,
    approvalTimeoutMs: num("approval-timeout-ms", values["approval-timeout-ms"]),
    ...modelChoice(values),
  });
  const server = await startServer(config);
  process.stdout.write(`${JSON.stringify({ msg: "gatehouse server listening", url: server.url, port: server.port, dataDir: config.dataDir, model: config.model })}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
  return 0;
}
