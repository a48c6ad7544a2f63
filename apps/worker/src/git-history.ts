import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { gitSafetyEnvironment } from "./sandbox/git-safety.js";
import { safeEnvironment } from "./sandbox/safe-env.js";

/** Past this a history is not listed and git's printing commands ask: a call must not wait on it. */
const LIST_TIMEOUT_MS = 5_000;
/** Settings of the repository that could run a program are not obeyed by the worker's own git. */
const SAFE = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-pager"];

/** What a git history holds: every path git tracks (the index) or tracked (any commit of any ref). */
interface Held {
  state: string;
  paths: readonly string[] | null;
  /** The first path a set of rules denies to read_file, by the rules' key. */
  denied: Map<string, string | null>;
}

/**
 * The paths of the work directory's repository, listed again only when its refs or index change,
 * so a rule denying `.env` to read_file can also hold `git log -p`, which prints a `.env`
 * committed once, whatever the working file's mask.
 */
export class GitHistory {
  private held: Held | null = null;
  private indexFile: string | null | undefined;

  constructor(private readonly workDir: string) {}

  /** The first path held that `isDenied` says the rules deny, or a reason the history could not be listed; null when none. */
  firstDenied(key: string, isDenied: (absolute: string) => boolean): string | null {
    const state = this.state();
    if (state === null) return null;
    if (this.held?.state !== state) this.held = { state, paths: this.list(), denied: new Map() };
    const held = this.held;
    if (!held.paths) return "what could not be listed in time";
    if (!held.denied.has(key)) held.denied.set(key, held.paths.find(isDenied) ?? null);
    return held.denied.get(key)!;
  }

  /** The refs and the index's stamp, or null outside a repository. */
  private state(): string | null {
    const refs = this.git(["for-each-ref", "--format=%(objectname) %(refname)"]);
    if (refs === null) return null;
    this.indexFile ??= this.git(["rev-parse", "--path-format=absolute", "--git-path", "index"])?.trim() ?? null;
    const index = this.indexFile ? fs.statSync(this.indexFile, { throwIfNoEntry: false }) : undefined;
    return `${refs}\n${index ? `${index.mtimeMs} ${index.size}` : "-"}`;
  }

  private list(): string[] | null {
    const top = this.git(["rev-parse", "--show-toplevel"])?.trim();
    const tracked = this.git(["ls-files", "-z", "--cached"]);
    const past = this.git(["log", "--all", "--reflog", "--no-renames", "--format=", "--name-only", "-z"]);
    if (!top || tracked === null || past === null) return null;
    const names = new Set([...tracked.split("\0"), ...past.split(/[\0\n]/)].filter((n) => n !== ""));
    return [...names].map((n) => path.join(top, n));
  }

  private git(args: string[]): string | null {
    const env = { ...safeEnvironment(), ...gitSafetyEnvironment(), GIT_CONFIG_NOSYSTEM: "1" };
    const r = spawnSync("git", [...SAFE, ...args], { cwd: this.workDir, env, encoding: "utf8", timeout: LIST_TIMEOUT_MS, maxBuffer: 256 * 1024 * 1024 });
    return r.status === 0 ? r.stdout : null;
  }
}
