// The options of `gatehouse run`, in the order help lists them; light, so that help loads without the command.
import { LOCAL_OPTIONS, MODE_OPTION } from "../flags.js";
import { CLIENT_TOKEN, tokenOptions } from "../token-flags.js";
import { TRUST_OPTIONS } from "../trust-flags.js";
import type { OptionTable } from "../options.js";

export const RUN_OPTIONS = {
  prompt: { value: "TEXT", help: "what to ask the model", required: true },
  ...MODE_OPTION,
  json: { help: "write every event as a JSON line (text deltas joined)" },
  wait: { help: "without a terminal: wait for another client (the browser console, the Telegram bot, ...) to answer what asks, instead of exiting 4" },
  ...LOCAL_OPTIONS,
  server: { value: "URL", help: "run on this server instead of one started here" },
  ...tokenOptions({ ...CLIENT_TOKEN, help: "with --server: a client token of the server" }),
  worker: { value: "ID", help: "with --server: the worker to run the session on" },
  ...TRUST_OPTIONS,
} as const satisfies OptionTable;
