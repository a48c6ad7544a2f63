import { setTimeout as sleep } from "node:timers/promises";
import type { Log } from "@gatehouse/log";
import { backoffMs } from "@gatehouse/protocol";
import { GrammyError, HttpError, type Bot } from "grammy";
import { BotTokenRefusedError } from "./errors.js";

/** How long one check of the Bot API may take before it counts as unreachable. */
export const CHECK_TIMEOUT_MS = 5000;
const MAX_DELAY_MS = 60_000;

/** Why a call to the Bot API failed, in a few words: its network error, no answer in time, or the API's own answer. */
export function whyUnreachable(err: unknown): string {
  if (err instanceof GrammyError) return `it answered ${err.error_code}: ${err.description}`;
  const cause = err instanceof HttpError ? err.error : err;
  // An aborted request's own words are grammY's ("timed out after ...").
  if (err instanceof HttpError && cause instanceof Error && cause.name === "AbortError") return err.message;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * Checks the bot token with the Bot API (`getMe`), trying again with backoff while the API
 * cannot be reached, saying so at each try and when it connects. A refused token ends it with
 * BotTokenRefusedError; `stop` ends it with false.
 */
export async function reachBotApi(bot: Bot, root: string, log: Log, stop: AbortSignal, firstDelayMs = 1000): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const timeout = AbortSignal.timeout(CHECK_TIMEOUT_MS);
    try {
      // One getMe, not bot.init(), which retries without end and without a word. grammY types its
      // signal as the abort-controller package's; Node's own is the same at run time.
      bot.botInfo = await bot.api.getMe(AbortSignal.any([stop, timeout]) as Parameters<Bot["init"]>[0]);
      if (attempt > 0) log.info(`connected to the Telegram Bot API at ${root} as @${bot.botInfo.username}`);
      return true;
    } catch (err) {
      if (err instanceof GrammyError && err.error_code === 401) throw new BotTokenRefusedError("Telegram refused the bot token (401): check it with BotFather");
      if (stop.aborted) return false;
      const delay = backoffMs(attempt, firstDelayMs, MAX_DELAY_MS);
      const why = timeout.aborted ? `no answer within ${CHECK_TIMEOUT_MS / 1000} s` : whyUnreachable(err);
      log.warn(`cannot reach the Telegram Bot API at ${root}: ${why}; trying again in ${delay / 1000} s`);
      if (!(await sleep(delay, true, { signal: stop }).catch(() => false))) return false;
    }
  }
}

/**
 * Follows the long poll's calls: the first that fails is told (the poll tries again every few
 * seconds on its own), and the first that works after it.
 */
export class PollWatch {
  private lost = false;

  constructor(
    private readonly root: string,
    private readonly log: Log,
  ) {}

  failed(err: unknown): void {
    if (this.lost) return;
    this.lost = true;
    this.log.warn(`lost the Telegram Bot API at ${this.root}: ${whyUnreachable(err)}; polling again until it answers`);
  }

  worked(): void {
    if (!this.lost) return;
    this.lost = false;
    this.log.info(`reached the Telegram Bot API at ${this.root} again`);
  }
}
