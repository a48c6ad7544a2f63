// The options of `gatehouse connect`, in the order help lists them; light, so that help loads without the command.
import { MODE_OPTION } from "../flags.js";
import { CLIENT_TOKEN, tokenOptions } from "../token-flags.js";
import { TRUST_OPTIONS } from "../trust-flags.js";
import type { OptionTable } from "../options.js";

export const CONNECT_OPTIONS = {
  server: { value: "URL", help: "the server, ws:// or wss://", required: true },
  ...tokenOptions(CLIENT_TOKEN),
  session: { value: "ID", help: "join this session" },
  worker: { value: "ID", help: "start a session on this worker" },
  ...MODE_OPTION,
  ...TRUST_OPTIONS,
} as const satisfies OptionTable;
