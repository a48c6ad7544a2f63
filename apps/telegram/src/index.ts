export { startTelegramBot, TelegramBot, type TelegramBotOptions } from "./telegram-bot.js";
export { botTokenFrom, parseTelegramSettings, TelegramSettings, usersWithTokens, type TelegramUser } from "./settings.js";
export { BotStateError, TelegramSettingsError } from "./errors.js";
export type { Log } from "@gatehouse/log";
