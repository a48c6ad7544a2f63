/** The Telegram bot's failures, each with a code a caller can switch on. */

/** The bot's settings do not check out: a field named with its problem, or a token missing. */
export class TelegramSettingsError extends Error {
  override readonly name = "TelegramSettingsError";
  readonly code = "TELEGRAM_SETTINGS";
}

/** The bot's state file cannot be read, or is not what the bot writes. */
export class BotStateError extends Error {
  override readonly name = "BotStateError";
  readonly code = "BOT_STATE";
}

/** Telegram refused the bot's token. */
export class BotTokenRefusedError extends Error {
  override readonly name = "BotTokenRefusedError";
  readonly code = "BOT_TOKEN_REFUSED";
}
