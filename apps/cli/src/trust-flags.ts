import fs from "node:fs";
import type { TrustOptions } from "@gatehouse/protocol/node";
import { CliError } from "./cli-error.js";

/** The flags that say how to trust a wss:// server; each has an environment variable too. */
export const TRUST_FLAGS = {
  ca: { type: "string" },
  fingerprint: { type: "string" },
  "known-servers": { type: "string" },
  "allow-plain": { type: "boolean" },
} as const;

export interface TrustFlagValues {
  ca?: string | undefined;
  fingerprint?: string | undefined;
  "known-servers"?: string | undefined;
  "allow-plain"?: boolean | undefined;
}

/** Trust options from flags, else GATEHOUSE_CA, GATEHOUSE_FINGERPRINT, GATEHOUSE_KNOWN_SERVERS, GATEHOUSE_ALLOW_PLAIN=1. */
export function trustOptions(
  values: TrustFlagValues,
  env: NodeJS.ProcessEnv = process.env,
  say: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): TrustOptions {
  const caFile = values.ca ?? env.GATEHOUSE_CA;
  let ca: string | undefined;
  if (caFile) {
    try {
      ca = fs.readFileSync(caFile, "utf8");
    } catch (err) {
      throw new CliError(`--ca: cannot read ${caFile}: ${(err as Error).message}`);
    }
  }
  return {
    ca,
    fingerprint: values.fingerprint ?? env.GATEHOUSE_FINGERPRINT,
    knownServers: values["known-servers"] ?? env.GATEHOUSE_KNOWN_SERVERS,
    allowPlain: values["allow-plain"] ?? env.GATEHOUSE_ALLOW_PLAIN === "1",
    onFirstUse: (server, fingerprint, file) => say(`gatehouse: trusting ${server} on first use: its certificate is ${fingerprint} (remembered in ${file})`),
  };
}
