// The options of `gatehouse telegram`, in the order help lists them; light, so that help loads without the command.
import { CLIENT_TOKEN, tokenOptions } from "../token-flags.js";
import { TRUST_OPTIONS } from "../trust-flags.js";
import type { OptionTable } from "../options.js";

export const TELEGRAM_OPTIONS = {
  server: { value: "URL", help: "the Gatehouse server, ws://HOST:PORT", required: true },
  ...tokenOptions({ ...CLIENT_TOKEN, help: "the client token the listed users act with" }),
  users: { value: "IDS", help: "the Telegram user ids who may use the bot, separated by commas", env: "GATEHOUSE_TELEGRAM_USERS" },
  config: { value: "FILE", help: "bot settings, or a server config with a telegram section (docs/telegram.md)" },
  state: { value: "FILE", help: "where the bot keeps its state (default: ~/.gatehouse/telegram-state.json)" },
  "api-root": { value: "URL", help: "the Telegram Bot API's address" },
  ...TRUST_OPTIONS,
} as const satisfies OptionTable;
