import { closeClient } from "@gatehouse/protocol";
import { runTerminal, SessionController } from "@gatehouse/terminal";
import { CliError } from "../cli-error.js";
import { connectClient } from "../remote.js";
import type { OptionValues } from "../options.js";
import type { CONNECT_OPTIONS } from "./connect-options.js";
import { CLIENT_TOKEN, requiredToken } from "../token-flags.js";
import { trustOptions } from "../trust-flags.js";
import { sandboxNote } from "../sandbox-note.js";

/** `gatehouse connect`: the terminal client on a remote server, in a session it joins or starts. */
export async function connectCommand(values: OptionValues<typeof CONNECT_OPTIONS>): Promise<number> {
  if (!values.session && !values.worker) throw new CliError("give --session ID to join a session, or --worker ID to start one");
  const mode = values.mode;
  const client = await connectClient(values.server, requiredToken(values, CLIENT_TOKEN), trustOptions(values));
  if (!process.stdin.isTTY) {
    await closeClient(client);
    throw new CliError("the terminal client needs a terminal; for scripts use `gatehouse run`");
  }
  try {
    const session = values.session
      ? (await client.session.get.query({ sessionId: values.session })).session
      : await client.session.create.mutate({ workerId: values.worker!, ...(mode ? { mode } : {}) });
    const controller = new SessionController(client, session.id, values.server, session.mode);
    const worker = (await client.workers.list.query()).find((w) => w.id === session.workerId);
    await runTerminal({
      controller,
      banner: `Connected to ${values.server}, session ${session.id} on worker ${session.workerId}. ${sandboxNote(worker?.sandbox)}`,
    });
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError((err as Error).message, "FAILED");
  } finally {
    await closeClient(client);
  }
  return 0;
}
