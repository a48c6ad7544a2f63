import { createLog } from "@gatehouse/log";
import { guardProcess, loadScenario, loadServerConfig, startServer, storeFromText, watchConfig } from "@gatehouse/server";
import { modelChoice } from "../flags.js";
import type { OptionValues } from "../options.js";
import type { SERVER_OPTIONS } from "./server-options.js";
import { embeddedTelegram } from "./telegram.js";

/** For the person who started the server: where the console is, and the certificate to check there. */
function consoleLine(url: string, fingerprint: string | null | undefined): string {
  const certificate = fingerprint ? `; the certificate's SHA-256 fingerprint, to compare with the browser's: ${fingerprint}` : "";
  return `gatehouse: the browser console is at ${url}${certificate}`;
}

/** `gatehouse server`: runs until SIGINT or SIGTERM. */
export async function serverCommand(values: OptionValues<typeof SERVER_OPTIONS>): Promise<number> {
  const overrides = {
    port: values.port,
    host: values.host,
    tls: values.tls,
    dataDir: values["data-dir"],
    scenario: values.scenario,
    approvalTimeoutMs: values["approval-timeout-ms"],
    store:
      values.postgres !== undefined
        ? { kind: "postgres" as const, url: values.postgres }
        : values.store !== undefined
          ? storeFromText(values.store)
          : undefined,
    ...modelChoice(values),
  };
  const config = loadServerConfig(values.config, overrides);
  // Sessions would fail one by one on a scenario that cannot be played: say so before listening.
  if (config.scenario) loadScenario(config.scenario);
  const log = createLog().child({ component: "server" });
  guardProcess(log);
  const server = await startServer(config, { log });
  const stopWatching = values.config ? watchConfig(values.config, () => loadServerConfig(values.config, overrides), server, log) : () => undefined;
  const local = ["0.0.0.0", "::"].includes(config.host) ? server.url.replace(/\/\/[^/]+:(\d+)$/, "//127.0.0.1:$1") : server.url;
  const consoleUrl = `${local.replace(/^ws/, "http")}/`;
  const listening = {
    msg: "gatehouse server listening",
    url: server.url,
    console: consoleUrl,
    port: server.port,
    dataDir: config.dataDir,
    model: config.model,
    ...(server.fingerprint ? { fingerprint: server.fingerprint } : {}),
  };
  process.stdout.write(`${JSON.stringify(listening)}\n`);
  process.stderr.write(`${consoleLine(consoleUrl, server.fingerprint)}\n`);
  let telegram: Awaited<ReturnType<typeof embeddedTelegram>> = null;
  try {
    telegram = await embeddedTelegram(config.telegram, values.config, { url: local, fingerprint: server.fingerprint }, config.dataDir, log);
  } catch (err) {
    stopWatching();
    await server.close();
    throw err;
  }
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  stopWatching();
  await telegram?.stop();
  await server.close();
  return 0;
}
