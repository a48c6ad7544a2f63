export { startTelegramBot, TelegramBot, type TelegramBotOptions } from "./telegram-bot.js";
export { botTokenFrom, parseTelegramSettings, TelegramSettings, TelegramSettingsError, usersWithTokens, type TelegramUser } from "./settings.js";
export { BotStateError } from "./bot-state.js";
export type { Log } from "@gatehouse/log";
