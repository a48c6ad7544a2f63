import fs from "node:fs";
import path from "node:path";
import { isGitDirectory } from "@gatehouse/policy";
import { removeInside, type Removal } from "./contained-removal.js";
import type { FolderListing } from "./work-tree.js";

/**
 * The entries of a git directory that decide what git runs: its settings (hooks, filters, diff and
 * merge programs, fsmonitor), the hooks themselves, attributes and excludes, and the pointers to
 * another git directory. Objects, refs, the index and logs are git's own writes and stay writable.
 */
const EXECUTION_ENTRIES: ReadonlySet<string> = new Set(["config", "config.worktree", "commondir", "gitdir", "hooks", "info"]);

/** A git directory (see isGitDirectory) by its listing; one a pointer names is found below. */
const isGitDir = (listing: FolderListing): boolean => isGitDirectory((name) => listing.entries.some((e) => e.name === name));

/** What the sandbox does with the parts that decide what git runs. */
export interface GitExecutionParts {
  /** Kept read-only. */
  present: string[];
  /**
   * Absent now, so no bind can keep them read-only (a bind needs the path to exist, and an empty
   * `commondir` would stop git): removed again if a command makes them.
   */
  absent: string[];
  /**
   * Every git directory of the work tree, wherever it lies and whatever its name (a bare one too,
   * and a folder a `.git` file or a `commondir` names).
   */
  gitDirs: string[];
  /** Every `.git` that is not a folder and every `commondir`: what names a git directory elsewhere. */
  pointers: string[];
}

/**
 * The paths under the work tree that decide what a later git command runs: in every `.git` folder
 * and every git directory (recognised by content, or named by a `.git` file or a `commondir`), at
 * any depth, the entries above; and every `.git` file, which names the git directory to use
 * (`gitdir:`).
 */
export function gitExecutionParts(listings: Iterable<[string, FolderListing]>): GitExecutionParts {
  const all = new Map(listings);
  const parts: GitExecutionParts = { present: [], absent: [], gitDirs: [], pointers: [] };
  for (const [dir, listing] of all) {
    if (isGitDir(listing)) parts.gitDirs.push(dir);
    for (const e of listing.entries) if ((e.name === ".git" && e.kind !== "dir") || e.name === "commondir") parts.pointers.push(path.join(dir, e.name));
  }
  const named = parts.pointers.map(pointerTarget).filter((t): t is string => t !== null && all.has(t));
  const gitDirs = new Set([...parts.gitDirs, ...named]);
  parts.gitDirs = [...gitDirs];
  for (const [dir, listing] of all) {
    const gitDir = dir.endsWith("/.git") || gitDirs.has(dir);
    const seen = new Set<string>();
    for (const e of listing.entries) {
      const kept = gitDir ? EXECUTION_ENTRIES.has(e.name) : e.name === ".git" && e.kind !== "dir";
      if (!kept) continue;
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
 * The git directory a pointer names, spelled as written (no symlink resolved): a `.git` file's
 * `gitdir:` from its folder, a `commondir` from its git directory, a `.git` link's text; null when
 * it names none.
 */
export function pointerTarget(pointer: string): string | null {
  try {
    const from = path.dirname(pointer);
    if (fs.lstatSync(pointer).isSymbolicLink()) return path.resolve(from, fs.readlinkSync(pointer));
    const text = fs.readFileSync(pointer, "utf8");
    if (path.basename(pointer) === "commondir") return path.resolve(from, text.trim());
    const line = /^gitdir: *(.+?)\s*$/m.exec(text);
    return line ? path.resolve(from, line[1]!) : null;
  } catch {
    return null;
  }
}

/**
 * The pointers a command made (in `now`, not `before`) that name a git directory the walk does not
 * see as one (`gitDirs`): too deep, outside the work directory, a symlink on the way, or nothing
 * at all. Such a git directory is neither read-only nor disarmed, so the pointer goes.
 */
export function unseenPointers(now: readonly string[], before: readonly string[], gitDirs: readonly string[]): string[] {
  const old = new Set(before);
  const seen = new Set(gitDirs);
  return now
    .filter((p) => !old.has(p))
    .filter((p) => {
      const target = pointerTarget(p);
      return target === null || !seen.has(target);
    });
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
