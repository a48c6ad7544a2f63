import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { PatternRefusedError } from "../errors.js";

/** The longest one request may run in the thread: a catastrophic backtracker stops here, and the worker never blocks. */
export const PATTERN_TIME_LIMIT_MS = 2_000;

/** A line that matched: its index in the text it came from, and its text (cut to the length asked for). */
export type Matched = [index: number, line: string];

/** What the thread is asked, and what each request answers. */
export interface ThreadRequests {
  /** The lines of each text a JavaScript regular expression matches. */
  lines: { ask: { source: string; flags: string; shown: number; texts: readonly string[] }; answer: Matched[][] };
  /** Whether each subject matches a glob, as picomatch matches it (`dot` set). */
  glob: { ask: { glob: string; basename: boolean; subjects: readonly string[] }; answer: boolean[] };
  /** Keeps a folder's .gitignore text, for `ignored`. */
  ignoreFile: { ask: { dir: string; text: string }; answer: true };
  /** Per path, whether any of its checks (a folder's .gitignore, the path relative to that folder) ignores it. */
  ignored: { ask: { checks: readonly (readonly [dir: string, relative: string])[][] }; answer: boolean[] };
}

/**
 * Requests whose limit holds per request: a regular expression over text, which may be a great
 * deal of text. The others (globs and .gitignore patterns over paths, which the walk bounds in
 * number) share one limit across the call, so that many requests just under it add up to no more.
 */
const LIMITED_EACH: ReadonlySet<keyof ThreadRequests> = new Set(["lines"]);

const requireHere = createRequire(import.meta.url);
const MODULES = { picomatch: requireHere.resolve("picomatch"), ignore: requireHere.resolve("ignore") };

// Runs in the thread: every regular expression built from a model's or a repository's text is run
// here (grep's pattern, glob patterns, .gitignore lines), never on the worker's event loop.
const THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const picomatch = require(workerData.picomatch);
const ignore = require(workerData.ignore);
let lineKey, lineRe;
let globs = new Map();
let ignores = new Map();
const handlers = {
  lines({ source, flags, shown, texts }) {
    if (lineKey !== flags + "/" + source) [lineKey, lineRe] = [flags + "/" + source, new RegExp(source, flags)];
    return texts.map((text) => {
      const found = [];
      const lines = text.split("\\n");
      for (let i = 0; i < lines.length; i++) if (lineRe.test(lines[i])) found.push([i, lines[i].slice(0, shown)]);
      return found;
    });
  },
  glob({ glob, basename, subjects }) {
    const key = (basename ? "b/" : "p/") + glob;
    let match = globs.get(key);
    if (!match) globs.set(key, (match = picomatch(glob, { dot: true, basename })));
    return subjects.map((s) => match(s));
  },
  ignoreFile({ dir, text }) {
    ignores.set(dir, ignore().add(text));
    return true;
  },
  ignored({ checks }) {
    return checks.map((list) => list.some(([dir, relative]) => ignores.get(dir).ignores(relative)));
  },
  reset() {
    [lineKey, lineRe, globs, ignores] = [undefined, undefined, new Map(), new Map()];
  },
};
parentPort.on("message", ({ id, kind, ask }) => {
  let reply;
  try {
    reply = { id, answer: handlers[kind](ask) };
  } catch (err) {
    reply = { id, error: String(err && err.message) };
  }
  if (kind !== "reset") parentPort.postMessage(reply);
});
`;

/** A thread that answered its last request in time, kept for the next call: starting one costs 20 ms or more. */
let idle: Worker | undefined;
let nextId = 0;

/**
 * One tool call's thread for running patterns: each request under a deadline, past which the
 * thread is ended and the request fails as too slow, while the worker's event loop (its
 * heartbeats, its other calls) goes on.
 */
export class PatternThread {
  private thread: Worker | undefined;
  /** Time the requests sharing one limit have taken so far. */
  private spent = 0;

  /** `tool` names the tool in errors. */
  constructor(
    private readonly tool: string,
    private readonly limitMs = PATTERN_TIME_LIMIT_MS,
  ) {}

  /** Runs one request; `what` and `where` say, in the error, what ran too long on what. */
  run<K extends keyof ThreadRequests>(kind: K, ask: ThreadRequests[K]["ask"], what: string, where: string): Promise<ThreadRequests[K]["answer"]> {
    const thread = (this.thread ??= start());
    const id = nextId++;
    const shared = !LIMITED_EACH.has(kind);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const done = (settle: () => void) => {
        clearTimeout(timer);
        if (shared) this.spent += performance.now() - started;
        thread.off("message", onMessage).off("error", onError);
        settle();
      };
      const failed = (message: string) => new PatternRefusedError("THREAD_FAILED", `${this.tool}: ${what} could not be run: ${message}`);
      const onMessage = (reply: { id: number; answer?: ThreadRequests[K]["answer"]; error?: string }) => {
        if (reply.id !== id) return;
        done(() => (reply.error === undefined ? resolve(reply.answer!) : reject(failed(reply.error))));
      };
      const onError = (err: Error) => done(() => reject(failed(err.message)));
      const timer = setTimeout(
        () => {
          this.close();
          done(() =>
            reject(
              new PatternRefusedError(
                "TOO_SLOW",
                `${this.tool}: ${what} ran longer than ${this.limitMs} ms on ${where} and was stopped; it likely backtracks catastrophically (nested repetition such as (a+)+, or many wildcards such as *a*a*a*b): simplify it`,
              ),
            ),
          );
        },
        this.limitMs - (shared ? this.spent : 0),
      );
      thread.on("message", onMessage).on("error", onError);
      thread.postMessage({ id, kind, ask });
    });
  }

  /** Done with the thread: kept, emptied, for the next call when none is kept yet, else ended. */
  release(): void {
    if (this.thread && !idle) {
      this.thread.postMessage({ id: nextId++, kind: "reset" });
      idle = this.thread;
    } else void this.thread?.terminate();
    this.thread = undefined;
  }

  /** Ends the thread (one stopped mid-request is never kept); a later request starts another. */
  private close(): void {
    void this.thread?.terminate();
    this.thread = undefined;
  }
}

function start(): Worker {
  const kept = idle;
  idle = undefined;
  if (kept) return kept;
  const thread = new Worker(THREAD, { eval: true, workerData: MODULES, resourceLimits: { maxOldGenerationSizeMb: 64 } });
  thread.unref();
  thread.on("error", () => {
    if (idle === thread) idle = undefined;
  });
  return thread;
}
