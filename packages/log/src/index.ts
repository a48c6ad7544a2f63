import { createRequire } from "node:module";
import tty from "node:tty";
import { pino, type Level, type Logger } from "pino";
import type { PinoPretty } from "pino-pretty";

const require = createRequire(import.meta.url);
/** Loaded only for a terminal: most processes log JSON and need not pay for the pretty printer. */
const prettyStream = (options: PinoPretty.PrettyOptions): PinoPretty.PrettyStream =>
  (require("pino-pretty") as { PinoPretty: typeof PinoPretty }).PinoPretty(options);

export type LogFormat = "json" | "pretty";
export type LogFields = Record<string, unknown>;

/** The log every part of Gatehouse writes to: a message and the facts that go with it. An `err` field is written with its stack. */
export interface Log {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A log whose every line also carries these fields (`component`, `workerId`, ...). */
  child(fields: LogFields): Log;
}

const LEVELS: readonly string[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
const FORMATS: readonly string[] = ["json", "pretty"];

/** A logging setting in the environment that is not one of the values it may take. */
export class LogSettingError extends Error {
  override readonly name = "LogSettingError";
  readonly code = "LOG_SETTING";
}

/** A setting from the environment, checked against what it may be. */
function fromEnv(name: string, allowed: readonly string[]): string | undefined {
  const value = process.env[name];
  if (value === undefined || value === "") return undefined;
  if (!allowed.includes(value)) throw new LogSettingError(`${name} must be one of ${allowed.join(", ")} (got "${value}")`);
  return value;
}

export interface LogOptions {
  /** Where the lines go: a file descriptor (2, stderr, by default) or a file, appended to. */
  destination?: number | string;
  /** `json` (one object a line) or `pretty`; by default pretty on a terminal, JSON anywhere else. */
  format?: LogFormat;
  level?: Level | "silent";
}

/** The message goes first in the object, so that it comes before the facts on the line. */
function wrap(logger: Logger): Log {
  return {
    debug: (msg, fields) => logger.debug({ msg, ...fields }),
    info: (msg, fields) => logger.info({ msg, ...fields }),
    warn: (msg, fields) => logger.warn({ msg, ...fields }),
    error: (msg, fields) => logger.error({ msg, ...fields }),
    child: (fields) => wrap(logger.child(fields)),
  };
}

/**
 * The log of a server, a worker or the CLI, written by pino. `GATEHOUSE_LOG_LEVEL` and
 * `GATEHOUSE_LOG_FORMAT` override the defaults; lines are written synchronously, so the last
 * ones before a crash are kept.
 */
export function createLog(opts: LogOptions = {}): Log {
  const destination = opts.destination ?? 2;
  const level = fromEnv("GATEHOUSE_LOG_LEVEL", LEVELS) ?? opts.level ?? "info";
  const onTerminal = typeof destination === "number" && tty.isatty(destination);
  const format = (fromEnv("GATEHOUSE_LOG_FORMAT", FORMATS) as LogFormat | undefined) ?? opts.format ?? (onTerminal ? "pretty" : "json");
  const stream =
    format === "pretty"
      ? prettyStream({
          destination,
          sync: true,
          colorize: onTerminal,
          translateTime: "SYS:HH:MM:ss.l",
          ignore: "pid,hostname",
          singleLine: true,
          mkdir: true,
          append: true,
        })
      : pino.destination({ dest: destination, sync: true, mkdir: true, append: true });
  return wrap(pino({ level, timestamp: pino.stdTimeFunctions.isoTime, base: { pid: process.pid } }, stream));
}

const nothing = () => undefined;

/** A log that writes nothing: the default where a caller passes none. */
export const silentLog: Log = { debug: nothing, info: nothing, warn: nothing, error: nothing, child: () => silentLog };
