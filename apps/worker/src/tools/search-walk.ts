import fs from "node:fs/promises";
import path from "node:path";
import { checkReachable } from "@gatehouse/fs-guard";
import type { ToolContext } from "../tool.js";
import { GitIgnores } from "./git-ignores.js";
import type { PatternThread } from "./pattern-thread.js";

/** The most files one search walks. */
const MAX_FILES = 20_000;
/** Never searched: git's own store. */
const GIT_DIR = ".git";
/** Searched only when ignored files are asked for, as it mostly is ignored. */
const DEPENDENCIES_DIR = "node_modules";

/** What a search left out, counted so that its output can say so. */
export interface Tally {
  /** Files read_file's rules or the sandbox keep from view. */
  skipped: number;
  /** Files or folders that could not be read. */
  unreadable: number;
  /** Files or folders a .gitignore (or the dependencies folder rule) left out. */
  ignored: number;
}

export const newTally = (): Tally => ({ skipped: 0, unreadable: 0, ignored: 0 });

/**
 * Every file (or symlink) under `root`, depth first. Never .git; unless `withIgnored`, neither
 * what the .gitignore files above and inside the tree ignore nor node_modules. Folders it cannot
 * list are counted, as are ignored ones; symlinked folders are not followed. The .gitignore
 * patterns run in `thread`.
 */
export async function* walk(ctx: ToolContext, root: string, withIgnored: boolean, tally: Tally, thread: PatternThread): AsyncGenerator<string> {
  const stat = await fs.stat(root);
  // A path through another namespace's root has a real path that does not resolve here, or names another object.
  checkReachable(stat, await fs.realpath(root).catch(() => null), root);
  if (!stat.isDirectory()) {
    yield root;
    return;
  }
  const ignores = withIgnored ? null : new GitIgnores(ctx, thread);
  await ignores?.above(root);
  const stack = [root];
  let seen = 0;
  while (stack.length > 0 && seen < MAX_FILES && !ctx.signal.aborted) {
    const dir = stack.pop()!;
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => {
      tally.unreadable++;
      return [];
    });
    await ignores?.folder(dir);
    const kept = entries
      .filter((e) => (e.isDirectory() ? e.name !== GIT_DIR : e.isFile() || e.isSymbolicLink()))
      .map((e) => ({ absolute: path.join(dir, e.name), dir: e.isDirectory(), name: e.name }));
    const ignored = ignores ? await ignores.ignored(kept) : [];
    const files: string[] = [];
    kept.forEach(({ absolute, dir: isDir, name }, i) => {
      if (ignores && ((isDir && name === DEPENDENCIES_DIR) || ignored[i])) tally.ignored++;
      else if (isDir) stack.push(absolute);
      else files.push(absolute);
    });
    seen += files.length;
    yield* files;
  }
}

/** What the output says about what the search left out. */
export function tallyNote(tally: Tally): string {
  const notes: string[] = [];
  if (tally.skipped > 0) notes.push(`(${tally.skipped} file(s) skipped: read_file does not allow them)`);
  if (tally.unreadable > 0) notes.push(`(${tally.unreadable} file(s) or folder(s) could not be read)`);
  if (tally.ignored > 0) notes.push(`(${tally.ignored} file(s) or folder(s) ignored by .gitignore or node_modules; set include_ignored to search them)`);
  return notes.map((n) => `\n${n}`).join("");
}
