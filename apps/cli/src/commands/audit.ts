import { closeClient, safeArguments, safeLine, showJson } from "@gatehouse/protocol";
import { describeError } from "@gatehouse/terminal";
import { CliError } from "../cli-error.js";
import type { OptionValues } from "../options.js";
import type { AUDIT_OPTIONS } from "./audit-options.js";
import { connectClient } from "../remote.js";
import { CLIENT_TOKEN, requiredToken } from "../token-flags.js";
import { trustOptions } from "../trust-flags.js";

/** `gatehouse audit`: the server's audit log, filtered; a line an entry, or JSON lines. */
export async function auditCommand(values: OptionValues<typeof AUDIT_OPTIONS>): Promise<number> {
  const client = await connectClient(values.server, requiredToken(values, CLIENT_TOKEN), trustOptions(values));
  try {
    const entries = await client.audit.query.query({
      sessionId: values.session,
      workerId: values.worker,
      toolName: values.tool,
      action: values.action,
      by: values.by,
      since: values.since,
      until: values.until,
      limit: values.limit,
    });
    for (const e of entries) {
      const line = values.json
        ? showJson(e).text
        : [
            e.at,
            e.action.padEnd(9),
            safeLine(e.by ?? "-"),
            `${e.workerId}/${e.sessionId}`,
            safeLine(e.toolName),
            safeArguments(e.arguments),
            `(${safeLine(e.rule ?? e.reason)})`,
          ].join("  ");
      process.stdout.write(`${line}\n`);
    }
    return 0;
  } catch (err) {
    throw new CliError(describeError(err, values.server), "FAILED");
  } finally {
    await closeClient(client);
  }
}
