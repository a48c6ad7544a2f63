import fs from "node:fs";
import path from "node:path";
import { irregularRefFile } from "./git-ref-files.js";
import { gitFailure, hostGit, output, type GitRunner } from "./own-git.js";

/** One check's view of the history: the first path held that `isDenied` says the rules deny (by the rules' `key`), or why it cannot be told; null when none. */
export interface ListedHistory {
  firstDenied(key: string, isDenied: (absolute: string) => boolean): string | null;
  /** A blob no tree or index entry names that a git command of `words` may print (by its id, or any object), or null. */
  unnamedBlob(words: readonly (string | null)[]): string | null;
}

/** Outside a repository nothing is held. */
const OUTSIDE: ListedHistory = { firstDenied: () => null, unnamedBlob: () => null };

/** A history that could not be listed holds, for all the worker knows, any file: a command that prints from it is refused with the cause. */
function unlisted(cause: string): ListedHistory {
  const reason = `what the worker could not list (${cause})`;
  return { firstDenied: () => reason, unnamedBlob: () => reason };
}

/** What a git history holds: every path git tracks (the index) or tracked (any commit of any ref). */
class Held implements ListedHistory {
  /** The first path a set of rules denies to read_file, by the rules' key. */
  private readonly denied = new Map<string, string | null>();

  constructor(
    readonly state: string,
    private readonly paths: readonly string[],
    private readonly unnamed: readonly string[],
  ) {}

  unnamedBlob(words: readonly (string | null)[]): string | null {
    if (this.unnamed.length === 0) return null;
    const found = words.find((w) => w === null || /^--(batch|stdin)/.test(w) || (/^[0-9a-f]{4,64}$/.test(w) && this.unnamed.some((id) => id.startsWith(w))));
    if (found === undefined) return null;
    return `${this.unnamed[0]!.slice(0, 12)} (a blob no tree names, one of ${this.unnamed.length}, which may be any file: git gc --prune=now removes them)`;
  }

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
        const listed = await this.list(git);
        if (typeof listed === "string") return unlisted(listed);
        this.held = new Held(state, listed.paths, listed.unnamed);
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
    return `${refs.stdout}\n${stamp ? `${stamp.mtimeMs} ${stamp.size}` : "-"}\n${await objectStoreStamp(path.join(commonDir, "objects"))}`;
  }

  /** Every path the repository tracks or tracked, or any commit or tree of its object store holds, or why they could not be listed. */
  private async list(git: GitRunner): Promise<{ paths: string[]; unnamed: string[] } | string> {
    const reachable = ["rev-list", "--all", "--reflog", "--objects"];
    const stored = ["cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname)"];
    const [top, tracked, past, all] = await Promise.all([
      git(["rev-parse", "--show-toplevel"]),
      git(["ls-files", "-z", "--stage"]),
      git(reachable),
      git(stored),
    ]);
    const failed = (
      [
        [top, "rev-parse"],
        [tracked, "ls-files"],
        [past, "rev-list"],
        [all, "cat-file"],
      ] as const
    ).find(([run]) => output(run) === null);
    if (failed) return gitFailure(failed[1], failed[0]);
    const root = top.stdout.trim();
    if (!root) return "git rev-parse did not print the work tree's top";
    const index = stagedEntries(tracked.stdout);
    const listed = listedObjects(past.stdout);
    for (const id of index.ids) listed.ids.add(id);
    const unreached = await unreachedObjects(git, all.stdout, listed.ids);
    if (typeof unreached === "string") return unreached;
    const names = new Set([...index.paths, ...listed.paths, ...unreached.paths].filter((n) => n !== ""));
    return { paths: [...names].map((n) => path.join(root, n)), unnamed: unreached.unnamed };
  }
}

/** Objects `git rev-list --objects` printed, by id, and the paths of its trees and blobs. */
interface ListedObjects {
  ids: Set<string>;
  paths: string[];
}

const OBJECT_LINE = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)(?: (.*))?$/;

/**
 * `git rev-list --objects` output read: an id and a path a line. A path holding a newline goes on
 * over the next lines; each piece also counts as a path of its own, so no reading of such a name
 * lists less than it holds.
 */
function listedObjects(text: string): ListedObjects {
  const ids = new Set<string>();
  const paths: string[] = [];
  let last: number | null = null;
  for (const line of text.split("\n")) {
    const object = OBJECT_LINE.exec(line);
    if (object) {
      ids.add(object[1]!);
      last = object[2] ? paths.push(object[2]) - 1 : null;
    } else if (line !== "") {
      paths.push(line);
      if (last !== null) paths[last] += `\n${line}`;
    }
  }
  return { ids, paths };
}

/** `git ls-files -z --stage` read: the index's paths and the ids of the blobs they name. */
function stagedEntries(text: string): ListedObjects {
  const ids = new Set<string>();
  const paths: string[] = [];
  for (const entry of text.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab < 0) continue;
    ids.add(entry.slice(0, tab).split(" ")[1] ?? "");
    paths.push(entry.slice(tab + 1));
  }
  return { ids, paths };
}

/** Past this many commits and trees that no ref or reflog reaches, the history is not listed: `git gc --prune=now` removes them. */
const MOST_UNREACHED = 4_000;

/**
 * The paths held by the commits and trees of the object store that no ref or reflog reaches (a
 * commit reset away, its reflog expired, not yet pruned), which `git log -p <id>` still prints.
 * A tree that no such commit holds is listed from its own top: where it once stood is not known.
 */
async function unreachedObjects(git: GitRunner, stored: string, reached: ReadonlySet<string>): Promise<{ paths: string[]; unnamed: string[] } | string> {
  const commits: string[] = [];
  const trees: string[] = [];
  const blobs: string[] = [];
  for (const line of stored.split("\n")) {
    const [type, id] = line.split(" ");
    if (!id || reached.has(id)) continue;
    if (type === "commit") commits.push(id);
    else if (type === "tree") trees.push(id);
    else if (type === "blob") blobs.push(id);
  }
  if (commits.length + trees.length > MOST_UNREACHED)
    return `${commits.length + trees.length} commits and trees no ref reaches, more than ${MOST_UNREACHED} to list (git gc --prune=now removes them)`;
  const paths: string[] = [];
  const seen = new Set<string>();
  for (const ids of [commits, () => trees.filter((t) => !seen.has(t))] as const) {
    const wanted = typeof ids === "function" ? ids() : ids;
    if (wanted.length === 0) continue;
    const run = await git(["rev-list", "--objects", "--no-walk", ...wanted]);
    if (output(run) === null) return gitFailure("rev-list", run);
    const listed = listedObjects(run.stdout);
    for (const id of listed.ids) seen.add(id);
    paths.push(...listed.paths);
  }
  return { paths, unnamed: blobs.filter((b) => !seen.has(b)) };
}

/**
 * What tells that objects came into the store: the times of its folders (a loose object changes
 * its folder's, a pack the pack folder's) and of the file naming other stores, one stat each.
 */
async function objectStoreStamp(objects: string): Promise<string> {
  const names = await fs.promises.readdir(objects).catch(() => [] as string[]);
  // One synchronous stat each (a few µs): a promise each would queue 258 jobs on libuv's four threads.
  return [".", ...names, "info/alternates"]
    .map((n) => {
      const st = fs.statSync(path.join(objects, n), { throwIfNoEntry: false });
      return st ? `${n} ${st.ino} ${st.mtimeMs}` : `${n} -`;
    })
    .join(",");
}
