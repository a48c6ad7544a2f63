import type { LogFields } from "@gatehouse/log";
import type { Log } from "../log.js";

/** Warnings that any connection can cause at will, with or without a token. */
const CAUSED_BY_CONNECTIONS = /^(limit hit: |token refused|refused: |access refused|refused a worker link message|connection error|TLS handshake failed)/;

/** Keys remembered at most; past it the table starts again (a flood of distinct keys only costs lines). */
const MAX_KEYS = 10_000;

/**
 * The server's log, with the warnings a connection can cause written at most once a second per
 * kind and token: a flood of refused requests must not become a flood of log lines (the disk and
 * the CPU spent writing are the server's). The next line of a kind says how many were held back.
 */
export function quietRepeats(log: Log, windowMs = 1000): Log {
  const recent = new Map<string, { until: number; held: number }>();
  const warn = (msg: string, fields?: LogFields) => {
    if (!CAUSED_BY_CONNECTIONS.test(msg)) return log.warn(msg, fields);
    const key = `${msg}\0${String(fields?.token ?? fields?.who ?? "")}`;
    const now = Date.now();
    const last = recent.get(key);
    if (last && now < last.until) {
      last.held++;
      return;
    }
    if (recent.size >= MAX_KEYS) recent.clear();
    recent.set(key, { until: now + windowMs, held: 0 });
    log.warn(msg, last?.held ? { ...fields, notLoggedSinceLastLine: last.held } : fields);
  };
  return {
    debug: (msg, fields) => log.debug(msg, fields),
    info: (msg, fields) => log.info(msg, fields),
    warn,
    error: (msg, fields) => log.error(msg, fields),
    child: (fields) => quietRepeats(log.child(fields), windowMs),
  };
}
