import fs from "node:fs";
import path from "node:path";
import { RulesFileError, type Ruleset } from "@gatehouse/policy";
import { appendRule, homeDirectory, readRulesText, RulesFileCache } from "@gatehouse/policy/node";

/** Where a worker's rules live under a data directory. */
export function workerRulesFile(dataDir: string, workerId: string): string {
  return path.join(dataDir, "workers", workerId, "permissions.jsonc");
}

export type LoadedRules = { ok: true; ruleset: Ruleset; file: string } | { ok: false; error: RulesFileError; file: string };

/**
 * Each worker's permissions.jsonc under the data directory: seeded when the worker is new (its
 * directory does not exist yet), edits live. A file deleted later is an error, never re-seeded.
 */
export class WorkerPermissions {
  private readonly cache = new RulesFileCache();
  private readonly seen = new Set<string>();
  /**
   * What each file gave in the current synchronous run of the server (until its queued promise
   * callbacks have run). No input is read before that run ends, so no edit the server could have
   * been told of is missed: a batch of calls, and the guards of calls that a commit lets go at
   * once, cost one stat of the file instead of one each.
   */
  private readonly loadedNow = new Map<string, LoadedRules>();

  constructor(
    private readonly dataDir: string,
    /** The home `~/` expands to for a worker that did not say its own. */
    private readonly home = homeDirectory(),
  ) {}

  file(workerId: string): string {
    return workerRulesFile(this.dataDir, workerId);
  }

  /** The worker's rules, with `~/` expanded to the worker's home. */
  load(workerId: string, home = this.home): LoadedRules {
    const key = `${workerId}\0${home}`;
    let loaded = this.loadedNow.get(key);
    if (!loaded) {
      if (this.loadedNow.size === 0) process.nextTick(() => this.loadedNow.clear());
      this.loadedNow.set(key, (loaded = this.loadFile(workerId, home)));
    }
    return loaded;
  }

  private loadFile(workerId: string, home: string): LoadedRules {
    const file = this.file(workerId);
    const seed = !this.seen.has(workerId) && !fs.existsSync(path.dirname(file));
    this.seen.add(workerId);
    try {
      return { ok: true, ruleset: this.cache.load(file, { home, seed }), file };
    } catch (err) {
      if (err instanceof RulesFileError) return { ok: false, error: err, file };
      throw err;
    }
  }

  /** The file's text as it is; empty when it cannot be read (load() says why). */
  text(workerId: string): string {
    try {
      return readRulesText(this.file(workerId));
    } catch {
      return "";
    }
  }

  append(workerId: string, tool: string, pattern: string, note: string): Promise<void> {
    return appendRule(this.file(workerId), { tool, pattern, note });
  }
}
