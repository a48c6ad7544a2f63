import fs from "node:fs";
import path from "node:path";
import { hostGit, output, type GitRunner } from "./own-git.js";

const OUTSIDE = Symbol("outside a repository");
const UNLISTED = "what the worker could not list";

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
  private readonly host: GitRunner;
  private git: GitRunner;

  /** Past OWN_GIT_TIMEOUT_MS a history is not listed and git's printing commands are refused: a call must not wait on it. */
  constructor(workDir: string) {
    this.host = this.git = hostGit(workDir);
  }

  /** `decide` run with the history listed by `git` (the sandbox's confined git) rather than git on the host. */
  within<T>(git: GitRunner, decide: () => T): T {
    this.git = git;
    try {
      return decide();
    } finally {
      this.git = this.host;
    }
  }

  /** The first path held that `isDenied` says the rules deny, or a reason the history could not be listed; null when none. */
  firstDenied(key: string, isDenied: (absolute: string) => boolean): string | null {
    const state = this.state();
    if (state === OUTSIDE) return null;
    if (state === null) return UNLISTED;
    if (this.held?.state !== state) this.held = { state, paths: this.list(), denied: new Map() };
    const held = this.held;
    if (!held.paths) return UNLISTED;
    if (!held.denied.has(key)) held.denied.set(key, held.paths.find(isDenied) ?? null);
    return held.denied.get(key)!;
  }

  /** The refs and the index's stamp; OUTSIDE outside a repository, null when git failed otherwise. */
  private state(): string | typeof OUTSIDE | null {
    const refs = this.git(["for-each-ref", "--format=%(objectname) %(refname)"]);
    if (refs.status !== 0) return /not a git repository/i.test(refs.stderr) ? OUTSIDE : null;
    this.indexFile ??= output(this.git(["rev-parse", "--path-format=absolute", "--git-path", "index"]))?.trim() ?? null;
    const index = this.indexFile ? fs.statSync(this.indexFile, { throwIfNoEntry: false }) : undefined;
    return `${refs.stdout}\n${index ? `${index.mtimeMs} ${index.size}` : "-"}`;
  }

  private list(): string[] | null {
    const top = output(this.git(["rev-parse", "--show-toplevel"]))?.trim();
    const tracked = output(this.git(["ls-files", "-z", "--cached"]));
    const past = output(this.git(["log", "--all", "--reflog", "--no-renames", "--no-textconv", "--no-ext-diff", "--format=", "--name-only", "-z"]));
    if (!top || tracked === null || past === null) return null;
    const names = new Set([...tracked.split("\0"), ...past.split(/[\0\n]/)].filter((n) => n !== ""));
    return [...names].map((n) => path.join(top, n));
  }
}
