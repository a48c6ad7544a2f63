import path from "node:path";
import lockfile from "proper-lockfile";
import writeFileAtomic from "write-file-atomic";
import { appendRuleText, type AppendRule } from "../append-rule.js";
import { PolicyError } from "../errors.js";
import { readRulesText } from "./rules-file-cache.js";

/** A lock older than this is taken to be left by a process that died holding it. */
const STALE_MS = 10_000;

const queues = new Map<string, Promise<unknown>>();

async function appendNow(file: string, rule: AppendRule): Promise<void> {
  const release = await lockfile.lock(file, { stale: STALE_MS, retries: { retries: 400, minTimeout: 5, maxTimeout: 25, factor: 1.2 } }).catch((err: Error) => {
    throw new PolicyError("APPEND_FAILED", `${file} is locked by another process: ${err.message}`);
  });
  try {
    const text = readRulesText(file);
    await writeFileAtomic(file, appendRuleText(text, rule));
  } finally {
    await release();
  }
}

/**
 * Appends an approval-made rule to a permissions file: comments and indentation kept, written
 * atomically (a temporary file, flushed, then renamed over it, mode kept), serialised per file in
 * this process and across processes by a lock.
 */
export function appendRule(file: string, rule: AppendRule): Promise<void> {
  const key = path.resolve(file);
  const previous = queues.get(key) ?? Promise.resolve();
  // A failed append is its caller's to report; the next one in the queue still runs.
  const next = previous.catch(() => undefined).then(() => appendNow(key, rule));
  queues.set(key, next);
  void next
    .finally(() => {
      if (queues.get(key) === next) queues.delete(key);
    })
    .catch(() => undefined); // the same failure the caller receives from `next`
  return next;
}
