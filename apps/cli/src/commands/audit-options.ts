// The options of `gatehouse audit`, in the order help lists them; light, so that help loads without the command.
import { wholeNumber } from "../flags.js";
import { CLIENT_TOKEN, tokenOptions } from "../token-flags.js";
import { TRUST_OPTIONS } from "../trust-flags.js";
import type { OptionTable } from "../options.js";

export const AUDIT_OPTIONS = {
  server: { value: "URL", help: "the server, ws:// or wss://", required: true },
  ...tokenOptions({ ...CLIENT_TOKEN, help: "an admin token of the server" }),
  session: { value: "ID", help: "entries of this session" },
  worker: { value: "ID", help: "entries of this worker" },
  tool: { value: "NAME", help: "entries of this tool" },
  action: { value: "ACTION", help: "allow, deny, ask, approved, denied, cancelled, timed_out or user_shell" },
  by: { value: "NAME", help: "answers given by this token's name" },
  since: { value: "TIME", help: "entries at or after this ISO 8601 time" },
  until: { value: "TIME", help: "entries before this ISO 8601 time" },
  limit: { value: "N", help: "the newest N entries (default 1000)", parse: wholeNumber },
  json: { help: "one JSON object a line" },
  ...TRUST_OPTIONS,
} as const satisfies OptionTable;
