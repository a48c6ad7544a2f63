import { parseArgs } from "node:util";
import { closeClient } from "@gatehouse/protocol";
import { runTerminal, SessionController } from "@gatehouse/terminal";
import { CliError } from "../cli-error.js";
import { connectClient } from "../remote.js";
import { parseMode } from "../flags.js";
import { TRUST_FLAGS, trustOptions } from "../trust-flags.js";
import { sandboxNote } from "../sandbox-note.js";

/** `gatehouse connect --server URL --token T [--session ID | --worker ID] [--mode MODE]`: the terminal client on a remote server. */
export async function connectCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      server: { type: "string" },
      token: { type: "string" },
      session: { type: "string" },
      worker: { type: "string" },
      mode: { type: "string" },
      ...TRUST_FLAGS,
    },
  });
  const token = values.token ?? process.env.GATEHOUSE_CLIENT_TOKEN;
  if (!values.server) throw new CliError("missing --server");
  if (!token) throw new CliError("missing --token (or GATEHOUSE_CLIENT_TOKEN)");
  if (!values.session && !values.worker) throw new CliError("give --session ID to join a session, or --worker ID to start one");
  const mode = parseMode(values.mode);
  const client = await connectClient(values.server, token, trustOptions(values));
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
    throw new CliError((err as Error).message, 1);
  } finally {
    await closeClient(client);
  }
  return 0;
}
