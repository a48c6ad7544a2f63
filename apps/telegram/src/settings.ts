import { z } from "zod";
import { TelegramSettingsError } from "./errors.js";

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "botTokenEnv must be an environment variable name");

export const TelegramUser = z.object({
  /** The person's numeric Telegram user id (not the @username, which its owner can change). */
  id: z.number({ error: "id must be a number (a Telegram user id)" }).int().positive(),
  /** The Gatehouse client token this person acts with; its role applies. */
  token: z.string().min(16, "token must be at least 16 characters").optional(),
});
export type TelegramUser = z.infer<typeof TelegramUser>;

/** The `telegram` section of a server config, or a standalone bot's config file. */
export const TelegramSettings = z.object({
  /** The environment variable that holds the bot token from BotFather (never the token itself). */
  botTokenEnv: EnvName.default("TELEGRAM_BOT_TOKEN"),
  users: z.array(TelegramUser).min(1, "users must name at least one Telegram user id"),
  /** The Bot API's root URL, for a self-hosted Bot API server. */
  apiRoot: z.url({ error: "apiRoot must be a URL" }).optional(),
  /** Where the bot keeps what it has shown, so that a restart repeats nothing. */
  stateFile: z.string().min(1).optional(),
});
export type TelegramSettings = z.infer<typeof TelegramSettings>;

/** Checks settings read from `where`; every problem is named with its field. */
export function parseTelegramSettings(raw: unknown, where: string): TelegramSettings {
  const parsed = TelegramSettings.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "telegram"}: ${i.message}`).join("; ");
  throw new TelegramSettingsError(`${where}: ${problems}`);
}

/** Each user with the token they act with: their own, else the default one; a user with neither is an error. */
export function usersWithTokens(users: TelegramUser[], defaultToken: string | undefined, where: string): { id: number; token: string }[] {
  return users.map((u) => {
    const token = u.token ?? defaultToken;
    if (!token) throw new TelegramSettingsError(`${where}: user ${u.id} has no token, and no default token (--token) was given`);
    return { id: u.id, token };
  });
}

/** The bot token from its environment variable; a missing one is an error that names the variable. */
export function botTokenFrom(env: NodeJS.ProcessEnv, name: string): string {
  const token = env[name]?.trim();
  if (!token) throw new TelegramSettingsError(`the bot token is missing: set ${name} to the token BotFather gave you`);
  return token;
}
