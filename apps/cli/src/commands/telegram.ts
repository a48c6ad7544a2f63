import os from "node:os";
import path from "node:path";
import type { Log } from "@gatehouse/log";
import { closeClient } from "@gatehouse/protocol";
import { trustServer, type TlsClientOptions } from "@gatehouse/protocol/node";
import {
  BotStateError,
  botTokenFrom,
  parseTelegramSettings,
  TelegramBot,
  TelegramSettingsError,
  usersWithTokens,
  type TelegramSettings,
} from "@gatehouse/telegram";
import { readConfigFile } from "@gatehouse/server";
import { CliError } from "../cli-error.js";
import { connectClient } from "../remote.js";
import type { OptionValues } from "../options.js";
import type { TELEGRAM_OPTIONS } from "./telegram-options.js";
import { CLIENT_TOKEN, tokenFrom } from "../token-flags.js";
import { trustOptions } from "../trust-flags.js";

/** A JSONC config file's value; a syntax error names its line and column. */
function readJson(file: string): unknown {
  try {
    return readConfigFile(file).value;
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/** The `telegram` section of a server's config; undefined when there is none. */
function telegramSection(json: unknown): unknown {
  return json && typeof json === "object" && "telegram" in json ? (json as { telegram: unknown }).telegram : undefined;
}

/** `--users 111,222` as user ids; anything else is an error naming the flag. */
function userIds(list: string): { id: number }[] {
  return list.split(",").map((s) => {
    if (!/^\d+$/.test(s.trim())) throw new CliError(`--users takes Telegram user ids (numbers) separated by commas (got "${s}")`);
    return { id: Number(s.trim()) };
  });
}

/** Settings errors and a missing bot token as the CLI's own one-line errors. */
function checked<T>(make: () => T): T {
  try {
    return make();
  } catch (err) {
    if (err instanceof TelegramSettingsError || err instanceof BotStateError) throw new CliError(err.message);
    throw err;
  }
}

/** Resolves on SIGINT or SIGTERM. */
function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
}

interface Start {
  url: string;
  tls: TlsClientOptions;
  botToken: string;
  settings: TelegramSettings;
  users: { id: number; token: string }[];
  stateFile: string;
  log?: Log | undefined;
}

/** The bot, and its start: it resolves once the bot polls for updates (it keeps trying while the Bot API cannot be reached). */
function start(bot: Start): { bot: TelegramBot; started: Promise<void> } {
  const made = checked(
    () =>
      new TelegramBot({
        url: bot.url,
        tls: bot.tls,
        botToken: bot.botToken,
        users: bot.users,
        stateFile: bot.stateFile,
        apiRoot: bot.settings.apiRoot,
        ...(bot.log ? { log: bot.log } : {}),
      }),
  );
  return { bot: made, started: made.start() };
}

/** `gatehouse telegram --server URL [--token-file FILE] --users ID[,ID...] [--config FILE] [--state FILE] [--api-root URL]` and the trust flags. */
export async function telegramCommand(values: OptionValues<typeof TELEGRAM_OPTIONS>): Promise<number> {
  const token = tokenFrom(values, CLIENT_TOKEN);
  const json = values.config ? readJson(values.config) : {};
  const fromFile = telegramSection(json) ?? json;
  const listed = values.users;
  const raw = { ...(fromFile as object), ...(values["api-root"] ? { apiRoot: values["api-root"] } : {}) } as { users?: unknown[] };
  raw.users = [...(raw.users ?? []), ...(listed ? userIds(listed) : [])];
  if (raw.users.length === 0) throw new CliError("name the Telegram users who may use the bot: --users ID[,ID...], or users in --config FILE");
  const where = values.config ?? "flags";
  const settings = checked(() => parseTelegramSettings(raw, where));
  const users = checked(() => usersWithTokens(settings.users, token, where));
  const botToken = checked(() => botTokenFrom(process.env, settings.botTokenEnv));
  const trust = trustOptions(values);
  for (const t of new Set(users.map((u) => u.token))) await closeClient(await connectClient(values.server, t, trust));
  const tls = await trustServer(values.server, trust);
  const stateFile = path.resolve(values.state ?? settings.stateFile ?? path.join(os.homedir(), ".gatehouse", "telegram-state.json"));
  const { bot, started } = start({ url: values.server, tls, botToken, settings, users, stateFile });
  const signalled = untilSignal();
  try {
    if ((await Promise.race([started.then(() => "started" as const), signalled.then(() => "signalled" as const)])) === "started") {
      const running = { msg: "gatehouse telegram bot running", bot: bot.bot.botInfo.username, server: values.server, users: users.map((u) => u.id), stateFile };
      process.stdout.write(`${JSON.stringify(running)}\n`);
      await signalled;
    }
  } catch (err) {
    throw new CliError((err as Error).message, "FAILED");
  } finally {
    await bot.stop();
  }
  return 0;
}

/**
 * The bot inside the server process, when the server's config has a `telegram` section: every
 * user there names the client token they act with. Over TLS it trusts the server's own certificate.
 */
export async function embeddedTelegram(
  section: unknown,
  configFile: string | undefined,
  server: { url: string; fingerprint: string | null },
  dataDir: string,
  log: Log,
): Promise<TelegramBot | null> {
  if (section === undefined) return null;
  const where = `${configFile ?? "config"}: telegram`;
  const settings = checked(() => parseTelegramSettings(section, where));
  const users = checked(() => usersWithTokens(settings.users, undefined, where));
  const botToken = checked(() => botTokenFrom(process.env, settings.botTokenEnv));
  const tls = server.fingerprint ? await trustServer(server.url, { fingerprint: server.fingerprint }) : {};
  const stateFile = path.resolve(settings.stateFile ?? path.join(dataDir, "telegram-state.json"));
  const botLog = log.child({ component: "telegram" });
  const { bot, started } = start({ url: server.url, tls, botToken, settings, users, stateFile, log: botLog });
  // The server does not wait for Telegram: the bot says while it cannot reach the Bot API, and keeps trying.
  started.catch((err: unknown) => botLog.error(`the Telegram bot stopped: ${(err as Error).message}`));
  return bot;
}
