import fs from "node:fs";
import type { TrustOptions } from "@gatehouse/protocol/node";
import { CliError } from "./cli-error.js";
import type { OptionTable, OptionValues } from "./options.js";

/** The options that say how to trust a wss:// server. */
export const TRUST_OPTIONS = {
  ca: { value: "FILE", help: "verify a wss:// server by this CA certificate (PEM)", env: "GATEHOUSE_CA" },
  fingerprint: { value: "SHA256", help: "verify a wss:// server by its certificate's fingerprint", env: "GATEHOUSE_FINGERPRINT" },
  "known-servers": {
    value: "FILE",
    help: "fingerprints pinned on first use, by default in ~/.gatehouse/known_servers",
    env: "GATEHOUSE_KNOWN_SERVERS",
  },
  "allow-plain": { help: "allow plain ws:// to a server that is not on loopback", env: "GATEHOUSE_ALLOW_PLAIN" },
} as const satisfies OptionTable;

export const TRUST_HELP = `trust: wss:// servers are verified by --ca FILE, else by the public CAs, else by their certificate's
  fingerprint: --fingerprint SHA256, or pinned on first use in --known-servers FILE; a changed
  certificate is refused. Plain ws:// only to loopback unless --allow-plain.`;

/** Trust options from the trust flags (or their environment variables). */
export function trustOptions(
  values: OptionValues<typeof TRUST_OPTIONS>,
  say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): TrustOptions {
  let ca: string | undefined;
  if (values.ca) {
    try {
      ca = fs.readFileSync(values.ca, "utf8");
    } catch (err) {
      throw new CliError(`--ca: cannot read ${values.ca}: ${(err as Error).message}`);
    }
  }
  return {
    ca,
    fingerprint: values.fingerprint,
    knownServers: values["known-servers"],
    allowPlain: values["allow-plain"] === true,
    onFirstUse: (server, fingerprint, file) => say(`gatehouse: trusting ${server} on first use: its certificate is ${fingerprint} (remembered in ${file})`),
  };
}
