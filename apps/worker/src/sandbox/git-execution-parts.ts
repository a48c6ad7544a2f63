import fs from "node:fs";
import path from "node:path";
import type { FolderListing } from "./work-tree.js";

/**
 * The entries of a git directory that decide what git runs: its settings (hooks, filters, diff and
 * merge programs, fsmonitor), the hooks themselves, attributes and excludes, and the pointers to
 * another git directory. Objects, refs, the index and logs are git's own writes and stay writable.
 */
const EXECUTION_ENTRIES: ReadonlySet<string> = new Set(["config", "config.worktree", "commondir", "gitdir", "hooks", "info"]);

const insideGitDir = (dir: string): boolean => dir.endsWith("/.git") || dir.includes("/.git/");

/**
 * The paths under the work tree that the sandbox keeps read-only so that a command cannot change
 * what a later git command runs: in every `.git` folder at any depth, and in every git directory
 * inside one (a submodule's `.git/modules/NAME`, a worktree's `.git/worktrees/NAME`), the entries
 * above; and every `.git` file, which names the git directory to use (`gitdir:`).
 */
export function gitExecutionParts(listings: Iterable<[string, FolderListing]>): string[] {
  const parts: string[] = [];
  for (const [dir, listing] of listings) {
    const gitDir = insideGitDir(dir) && (dir.endsWith("/.git") || listing.entries.some((e) => e.name === "HEAD"));
    for (const e of listing.entries) {
      const named = gitDir ? EXECUTION_ENTRIES.has(e.name) : e.name === ".git" && e.kind !== "dir";
      if (!named) continue;
      const full = path.join(dir, e.name);
      // A link is kept read-only where it leads; one that leads nowhere has nothing to keep.
      const real = e.kind === "symlink" ? realOrNull(full) : full;
      if (real) parts.push(real);
    }
  }
  return parts;
}

function realOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}
