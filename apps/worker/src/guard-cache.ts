import type { Guard } from "@gatehouse/protocol";
import { FileGuard } from "./file-guard.js";
import { GitHistory } from "./git-history.js";
import { withOwnSecrets } from "./own-secrets.js";

/**
 * FileGuards by the content of the rules they were built from. Every request carries its rules;
 * they change only when a rule is added or a file edited, so most calls reuse a guard whose glob
 * matchers are already compiled.
 */
export class GuardCache {
  private readonly guards = new Map<string, FileGuard>();
  /** The same guard object (the worker link keeps one per id) is found without serialising it. */
  private readonly byObject = new WeakMap<Guard, FileGuard>();
  private readonly history: GitHistory;

  constructor(
    private readonly workDir: string,
    /** The worker's own secrets, protected on top of what each guard names. */
    private readonly ownSecrets: readonly string[] = [],
    private readonly size = 32,
  ) {
    this.history = new GitHistory(workDir);
  }

  get(guard: Guard): FileGuard {
    const same = this.byObject.get(guard);
    if (same) return same;
    const found = this.byContent(guard);
    this.byObject.set(guard, found);
    return found;
  }

  private byContent(guard: Guard): FileGuard {
    const key = JSON.stringify(guard);
    let found = this.guards.get(key);
    if (found) {
      this.guards.delete(key);
    } else {
      found = new FileGuard(withOwnSecrets(guard, this.ownSecrets), this.workDir, this.history);
      if (this.guards.size >= this.size) this.guards.delete(this.guards.keys().next().value!);
    }
    this.guards.set(key, found);
    return found;
  }
}
