import fs from "node:fs";
import path from "node:path";
import { removeInside, type Removal } from "./contained-removal.js";
import type { FolderListing } from "./work-tree.js";

/**
 * The entries of a git directory that decide what git runs: its settings (hooks, filters, diff and
 * merge programs, fsmonitor), the hooks themselves, attributes and excludes, and the pointers to
 * another git directory. Objects, refs, the index and logs are git's own writes and stay writable.
 */
const EXECUTION_ENTRIES: ReadonlySet<string> = new Set(["config", "config.worktree", "commondir", "gitdir", "hooks", "info"]);

const insideGitDir = (dir: string): boolean => dir.endsWith("/.git") || dir.includes("/.git/");

/** A git directory has a HEAD and its objects or the pointer to them; `logs` has a HEAD too, and neither. */
function isGitDir(listing: FolderListing): boolean {
  let head = false;
  let store = false;
  for (const e of listing.entries) {
    if (e.name === "HEAD") head = true;
    else if (e.name === "objects" || e.name === "commondir") store = true;
  }
  return head && store;
}

/** What the sandbox does with the parts that decide what git runs. */
export interface GitExecutionParts {
  /** Kept read-only. */
  present: string[];
  /**
   * Absent now, so no bind can keep them read-only (a bind needs the path to exist, and an empty
   * `commondir` would stop git): removed again if a command makes them.
   */
  absent: string[];
  /** Every git directory of the work tree, wherever it lies and whatever its name (a bare one too). */
  gitDirs: string[];
}

/**
 * The paths under the work tree that decide what a later git command runs: in every `.git` folder
 * at any depth, and in every git directory inside one (a submodule's `.git/modules/NAME`, a
 * worktree's `.git/worktrees/NAME`), the entries above; and every `.git` file, which names the git
 * directory to use (`gitdir:`).
 */
export function gitExecutionParts(listings: Iterable<[string, FolderListing]>): GitExecutionParts {
  const parts: GitExecutionParts = { present: [], absent: [], gitDirs: [] };
  for (const [dir, listing] of listings) {
    const isOne = isGitDir(listing);
    if (isOne) parts.gitDirs.push(dir);
    const gitDir = insideGitDir(dir) && (dir.endsWith("/.git") || isOne);
    const seen = new Set<string>();
    for (const e of listing.entries) {
      const named = gitDir ? EXECUTION_ENTRIES.has(e.name) : e.name === ".git" && e.kind !== "dir";
      if (!named) continue;
      seen.add(e.name);
      const full = path.join(dir, e.name);
      // A link is kept read-only where it leads; one that leads nowhere has nothing to keep.
      const real = e.kind === "symlink" ? realOrNull(full) : full;
      if (real) parts.present.push(real);
    }
    if (gitDir) for (const name of EXECUTION_ENTRIES) if (!seen.has(name)) parts.absent.push(path.join(dir, name));
  }
  return parts;
}

/**
 * Removes those of `paths` (inside `workDir`) that exist now, never through a symlink a command put
 * on their way; says what was removed and what was refused.
 */
export function removeMade(workDir: string, paths: readonly string[]): Removal[] {
  return removeInside(workDir, paths).filter((r) => r.outcome !== "absent");
}

/** Where a path leads; null when nothing is there. */
export function realOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}
