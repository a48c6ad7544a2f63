import type { Matched, PatternThread } from "./pattern-thread.js";

/** The most of one matching line a result keeps. */
export const SHOWN_LINE_LIMIT = 2_000;

/**
 * A JavaScript regular expression run line by line in the call's pattern thread, each batch of
 * text under the thread's deadline: past it the search reports the pattern as too slow.
 */
export class LineMatcher {
  constructor(
    private readonly source: string,
    private readonly flags: string,
    private readonly thread: PatternThread,
  ) {}

  /** The matching lines of each text, in order. */
  match(texts: readonly string[], where: string): Promise<Matched[][]> {
    return this.thread.run("lines", { source: this.source, flags: this.flags, shown: SHOWN_LINE_LIMIT, texts }, "the pattern", where);
  }
}
