import { Worker } from "node:worker_threads";
import { PatternRefusedError } from "../errors.js";

/** The longest a pattern may run on one batch of text: a catastrophic backtracker stops here, and the worker never blocks. */
export const PATTERN_TIME_LIMIT_MS = 2_000;
/** The most of one matching line a result keeps. */
export const SHOWN_LINE_LIMIT = 2_000;

/** A line that matched: its index in the text it came from, and its text (cut to SHOWN_LINE_LIMIT). */
export type Matched = [index: number, line: string];

// Runs in the thread: the model's regular expression never runs on the worker's event loop.
const THREAD = `
const { parentPort } = require("node:worker_threads");
let key, re;
parentPort.on("message", ({ source, flags, shown, texts }) => {
  if (key !== flags + "/" + source) [key, re] = [flags + "/" + source, new RegExp(source, flags)];
  parentPort.postMessage(texts.map((text) => {
    const found = [];
    const lines = text.split("\\n");
    for (let i = 0; i < lines.length; i++) if (re.test(lines[i])) found.push([i, lines[i].slice(0, shown)]);
    return found;
  }));
});
`;

/** A thread that finished its last search in time, kept for the next: starting one costs 20 ms or more. */
let idle: Worker | undefined;

/**
 * A JavaScript regular expression run line by line in a thread of its own, each batch of text
 * under a deadline: past it the thread is ended and the search reports the pattern as too slow,
 * while the worker's event loop (its heartbeats, its other calls) goes on.
 */
export class LineMatcher {
  private thread: Worker | undefined;

  constructor(
    private readonly source: string,
    private readonly flags: string,
    private readonly limitMs = PATTERN_TIME_LIMIT_MS,
  ) {}

  /** The matching lines of each text, in order. */
  match(texts: readonly string[], where: string): Promise<Matched[][]> {
    const thread = (this.thread ??= this.start());
    return new Promise((resolve, reject) => {
      const done = (settle: () => void) => {
        clearTimeout(timer);
        thread.off("message", onMessage).off("error", onError);
        settle();
      };
      const onMessage = (found: Matched[][]) => done(() => resolve(found));
      const onError = (err: Error) => done(() => reject(new PatternRefusedError("THREAD_FAILED", `grep: the pattern could not be run: ${err.message}`)));
      const timer = setTimeout(() => {
        this.close();
        done(() =>
          reject(
            new PatternRefusedError(
              "TOO_SLOW",
              `grep: the pattern ran longer than ${this.limitMs} ms on ${where} and was stopped; it likely backtracks catastrophically (nested repetition such as (a+)+): simplify it`,
            ),
          ),
        );
      }, this.limitMs);
      thread.on("message", onMessage).on("error", onError);
      thread.postMessage({ source: this.source, flags: this.flags, shown: SHOWN_LINE_LIMIT, texts });
    });
  }

  /** Done with the thread: kept for the next search when none is kept yet, else ended. */
  release(): void {
    if (this.thread && !idle) idle = this.thread;
    else void this.thread?.terminate();
    this.thread = undefined;
  }

  /** Ends the thread (one stopped mid-match is never kept); a later match starts another. */
  private close(): void {
    void this.thread?.terminate();
    this.thread = undefined;
  }

  private start(): Worker {
    const kept = idle;
    idle = undefined;
    if (kept) return kept;
    const thread = new Worker(THREAD, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    thread.unref();
    thread.on("error", () => {
      if (idle === thread) idle = undefined;
    });
    return thread;
  }
}
