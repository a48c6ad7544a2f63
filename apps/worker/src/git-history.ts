import fs from "node:fs";
import path from "node:path";
import { irregularRefFile } from "./git-ref-files.js";
import { gitFailure, hostGit, output, type GitRunner } from "./own-git.js";

/** One check's view of the history: the first path held that `isDenied` says the rules deny (by the rules' `key`), or why it cannot be told; null when none. */
export interface ListedHistory {
  firstDenied(key: string, isDenied: (absolute: string) => boolean): string | null;
}

/** Outside a repository nothing is held. */
const OUTSIDE: ListedHistory = { firstDenied: () => null };

/** A history that could not be listed holds, for all the worker knows, any file: a command that prints from it is refused with the cause. */
function unlisted(cause: string): ListedHistory {
  const reason = `what the worker could not list (${cause})`;
  return { firstDenied: () => reason };
}

/** What a git history holds: every path git tracks (the index) or tracked (any commit of any ref). */
class Held implements ListedHistory {
  /** The first path a set of rules denies to read_file, by the rules' key. */
  private readonly denied = new Map<string, string | null>();

  constructor(
    readonly state: string,
    private readonly paths: readonly string[],
  ) {}

  firstDenied(key: string, isDenied: (absolute: string) => boolean): string | null {
    if (!this.denied.has(key)) this.denied.set(key, this.paths.find(isDenied) ?? null);
    return this.denied.get(key)!;
  }
}

/** git's list of refs: an object name and a ref name a line. */
const REF_LINES = /^(?:[0-9a-f]{40}(?:[0-9a-f]{24})? \S+\n)*$/;

/**
 * The paths of the work directory's repository, listed again only when its refs or index change,
 * so a rule denying `.env` to read_file can also hold `git log -p`, which prints a `.env`
 * committed once, whatever the working file's mask. Git runs as a child the worker does not wait
 * on: its event loop (and its heartbeats) go on while a history is listed.
 */
export class GitHistory {
  private held: Held | null = null;
  private readonly host: GitRunner;

  /** Each git run is bounded by `deadlineMs` (OWN_GIT_TIMEOUT_MS when not given); past it the history is not listed. */
  constructor(workDir: string, deadlineMs?: number) {
    this.host = hostGit(workDir, deadlineMs);
  }

  /**
   * The history as it is now, listed by `git` (the sandbox's confined git; git on the host without
   * it). Anything but a listing or git's plain "not a git repository" comes back as a cause.
   */
  async listed(git: GitRunner = this.host): Promise<ListedHistory> {
    try {
      const state = await this.state(git);
      if (typeof state !== "string") return state;
      if (this.held?.state !== state) {
        const paths = await this.list(git);
        if (typeof paths === "string") return unlisted(paths);
        this.held = new Held(state, paths);
      }
      return this.held;
    } catch (err) {
      return unlisted(`reading git's files failed: ${(err as Error).message}`);
    }
  }

  /** The refs and the index's stamp, or what was found instead. */
  private async state(git: GitRunner): Promise<string | ListedHistory> {
    const where = await git(["rev-parse", "--path-format=absolute", "--absolute-git-dir", "--git-common-dir", "--git-path", "index"]);
    if (where.status !== 0) return where.status === 128 && /not a git repository/i.test(where.stderr) ? OUTSIDE : unlisted(gitFailure("rev-parse", where));
    const [gitDir, commonDir, index] = where.stdout.split("\n");
    if (!gitDir || !commonDir || !index) return unlisted("git rev-parse did not print where the repository is");
    const irregular = await irregularRefFile({ gitDir, commonDir, index });
    if (irregular) return unlisted(`${irregular}, one of git's files, is not a regular file`);
    const refs = await git(["for-each-ref", "--format=%(objectname) %(refname)"]);
    if (refs.status !== 0) return unlisted(gitFailure("for-each-ref", refs));
    if (!REF_LINES.test(refs.stdout)) return unlisted("git for-each-ref printed what is not a list of refs");
    const stamp = await fs.promises.stat(index).catch(() => null);
    return `${refs.stdout}\n${stamp ? `${stamp.mtimeMs} ${stamp.size}` : "-"}`;
  }

  /** Every path the repository tracks or tracked, or why they could not be listed. */
  private async list(git: GitRunner): Promise<string[] | string> {
    const log = ["log", "--all", "--reflog", "--no-renames", "--no-textconv", "--no-ext-diff", "--format=", "--name-only", "-z"];
    const [top, tracked, past] = await Promise.all([git(["rev-parse", "--show-toplevel"]), git(["ls-files", "-z", "--cached"]), git(log)]);
    const failed = (
      [
        [top, "rev-parse"],
        [tracked, "ls-files"],
        [past, "log"],
      ] as const
    ).find(([run]) => output(run) === null);
    if (failed) return gitFailure(failed[1], failed[0]);
    const root = top.stdout.trim();
    if (!root) return "git rev-parse did not print the work tree's top";
    const names = new Set([...tracked.stdout.split("\0"), ...past.stdout.split(/[\0\n]/)].filter((n) => n !== ""));
    return [...names].map((n) => path.join(root, n));
  }
}
