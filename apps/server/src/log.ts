/** Where the server writes its structured log; one small interface so the sink can change in one place. */
export interface Log {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

type Level = "info" | "warn" | "error";

/**
 * One JSON object a line; on a terminal, one readable line instead
 * (`12:00:01 warn token refused name=ada`).
 */
export function streamLog(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr): Log {
  const write = (level: Level, msg: string, fields: Record<string, unknown> = {}) => {
    const at = new Date().toISOString();
    if (out.isTTY) {
      const rest = Object.entries(fields).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
      out.write(`${at.slice(11, 19)} ${level} ${msg}${rest.length ? ` ${rest.join(" ")}` : ""}\n`);
    } else {
      out.write(`${JSON.stringify({ at, level, msg, ...fields })}\n`);
    }
  };
  return { info: (m, f) => write("info", m, f), warn: (m, f) => write("warn", m, f), error: (m, f) => write("error", m, f) };
}

export const silentLog: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };
