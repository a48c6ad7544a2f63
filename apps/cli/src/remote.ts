import { closeClient, type GatehouseClient } from "@gatehouse/protocol";
import { createNodeClient, trustServer, TrustError, type TrustOptions } from "@gatehouse/protocol/node";
import { describeError } from "@gatehouse/terminal";
import { CliError } from "./cli-error.js";

/**
 * A client whose server answered: an unreachable server or a refused token is a one-line error
 * instead of a client that retries in silence.
 */
export async function connectClient(url: string, token: string, trust: TrustOptions = {}, timeoutMs = 5000): Promise<GatehouseClient> {
  if (!/^wss?:\/\//.test(url)) throw new CliError(`--server must be a ws:// or wss:// address (got "${url}")`);
  const tls = await trustServer(url, trust).catch((err: Error) => {
    throw new CliError(err instanceof TrustError ? err.message : `cannot reach the server at ${url}: ${err.message}`, "FAILED");
  });
  let opened = false;
  const client = createNodeClient({ url, token, tls, onOpen: () => (opened = true) });
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new CliError(`cannot reach the server at ${url}${opened ? " (it did not answer)" : ""}`, "FAILED")), timeoutMs).unref(),
  );
  try {
    await Promise.race([client.session.list.query(), timeout]);
    return client;
  } catch (err) {
    await closeClient(client);
    if (err instanceof CliError) throw err;
    throw new CliError(describeError(err, url), "FAILED");
  }
}
