import fs from "node:fs";
import path from "node:path";
import { RulesFileError, type Ruleset } from "@gatehouse/policy";
import { appendRule, homeDirectory, perRun, readRulesText, RulesFileCache } from "@gatehouse/policy/node";
import { FileWatch, type Look } from "./file-watch.js";

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
  /** One look at the file per synchronous run of the server: a batch of calls, and the guards of calls a commit lets go at once, share it. */
  private readonly loadedNow = perRun<LoadedRules>();
  private readonly watches = new Map<string, FileWatch>();
  /** What each worker's file gave at its last look for a home, and that look. */
  private readonly last = new Map<string, { loaded: LoadedRules; look: Look }>();

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
    return this.loadedNow(key, () => {
      const look = this.watchOf(workerId).looking();
      const loaded = this.loadFile(workerId, home);
      this.last.set(key, { loaded, look });
      return loaded;
    });
  }

  /**
   * The rules as load() gives them, without a look at the file while its watch has seen nothing
   * happen to it since the last (see FileWatch): what a call about to run is checked with, once
   * its batch has been decided on a look of its own.
   */
  current(workerId: string, home = this.home): LoadedRules {
    const last = this.last.get(`${workerId}\0${home}`);
    return last && this.watches.get(workerId)?.unchangedSince(last.look) ? last.loaded : this.load(workerId, home);
  }

  /** Ends the watches on the rules files. */
  close(): void {
    for (const watch of this.watches.values()) watch.close();
  }

  private watchOf(workerId: string): FileWatch {
    let watch = this.watches.get(workerId);
    if (!watch) this.watches.set(workerId, (watch = new FileWatch(this.file(workerId))));
    return watch;
  }

  private loadFile(workerId: string, home: string): LoadedRules {
    const file = this.file(workerId);
    const seed = !this.seen.has(workerId) && !fs.existsSync(path.dirname(file));
    try {
      const ruleset = this.cache.load(file, { home, seed });
      this.seen.add(workerId);
      return { ok: true, ruleset, file };
    } catch (err) {
      if (!(err instanceof RulesFileError)) throw err;
      // A seed that failed (a full disk) left nothing behind, and is tried again at the next call.
      if (!seed) this.seen.add(workerId);
      return { ok: false, error: err, file };
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
