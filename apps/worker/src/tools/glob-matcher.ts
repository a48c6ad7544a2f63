import type { PatternThread } from "./pattern-thread.js";

/** Paths sent to the thread at once. */
const BATCH = 2_048;

/**
 * A glob from the model, matched as picomatch matches it (`dot` set; `basename`: the last part
 * of each path only) in the call's pattern thread: a glob such as `*a*a*a*a*b` makes a regular
 * expression that backtracks for ever on a long name, and the thread's deadline stops it.
 */
export class GlobMatcher {
  private readonly what: string;

  constructor(
    private readonly glob: string,
    private readonly basename: boolean,
    private readonly thread: PatternThread,
  ) {
    this.what = `the glob ${JSON.stringify(glob.length > 200 ? `${glob.slice(0, 200)}…` : glob)}`;
  }

  /** Those of `items` whose `subject` matches, in order; `shown` gives the path named in an error. */
  async matching<T>(items: readonly T[], subject: (item: T) => string, shown: (item: T) => string): Promise<T[]> {
    const out: T[] = [];
    for (let i = 0; i < items.length; i += BATCH) {
      const batch = items.slice(i, i + BATCH);
      const where = `${shown(batch[0]!)}${batch.length > 1 ? ` and ${batch.length - 1} other path(s)` : ""}`;
      const found = await this.thread.run("glob", { glob: this.glob, basename: this.basename, subjects: batch.map(subject) }, this.what, where);
      batch.forEach((item, j) => found[j] && out.push(item));
    }
    return out;
  }
}
