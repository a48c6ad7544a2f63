import os from "node:os";
import path from "node:path";
import { appendRule, RulesFileCache, RulesFileError, type Ruleset } from "@gatehouse/policy";

/** Where a worker's rules live under a data directory. */
export function workerRulesFile(dataDir: string, workerId: string): string {
  return path.join(dataDir, "workers", workerId, "permissions.jsonc");
}

export type LoadedRules = { ok: true; ruleset: Ruleset; file: string } | { ok: false; error: RulesFileError; file: string };

/** Each worker's permissions.jsonc under the data directory: seeded on first use, edits live. */
export class WorkerPermissions {
  private readonly cache = new RulesFileCache();

  constructor(
    private readonly dataDir: string,
    private readonly home = os.homedir(),
  ) {}

  file(workerId: string): string {
    return workerRulesFile(this.dataDir, workerId);
  }

  load(workerId: string): LoadedRules {
    const file = this.file(workerId);
    try {
      return { ok: true, ruleset: this.cache.load(file, { home: this.home, seed: true }), file };
    } catch (err) {
      if (err instanceof RulesFileError) return { ok: false, error: err, file };
      throw err;
    }
  }

  append(workerId: string, tool: string, pattern: string, note: string): Promise<void> {
    return appendRule(this.file(workerId), { tool, pattern, note });
  }
}
