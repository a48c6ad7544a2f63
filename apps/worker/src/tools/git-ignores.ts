import path from "node:path";
import { closeDescriptor, openRegular, readHead } from "@gatehouse/fs-guard";
import { isInside } from "@gatehouse/policy";
import type { ToolContext } from "../tool.js";
import type { PatternThread } from "./pattern-thread.js";

/** The most of one .gitignore file read. */
const IGNORE_FILE_LIMIT = 256 * 1024;

/**
 * The .gitignore files that apply to a search, as git applies them: each folder's file to the
 * paths below it, from the work directory (or the search's root, when it lies outside) down.
 * A .gitignore is read as any file a search meets: opened first, only a regular file that
 * read_file could read; one that cannot be read ignores nothing. The patterns are matched in the
 * call's pattern thread: a repository's .gitignore is input like the model's own patterns.
 */
export class GitIgnores {
  /** The folders read so far: true where a .gitignore was found and handed to the thread. */
  private readonly rules = new Map<string, boolean>();

  constructor(
    private readonly ctx: ToolContext,
    private readonly thread: PatternThread,
  ) {}

  /** Loads the files of the folders from the work directory down to `root` (a search's start). */
  async above(root: string): Promise<void> {
    const top = isInside(root, this.ctx.workDir) ? this.ctx.workDir : root;
    for (let dir = root; ; dir = path.dirname(dir)) {
      await this.folder(dir);
      if (dir === top || dir === path.dirname(dir)) return;
    }
  }

  /** Per path (a folder when `dir`), whether the files of the folders above it ignore it. */
  async ignored(paths: readonly { absolute: string; dir: boolean }[]): Promise<boolean[]> {
    const checks = paths.map((p) => this.checks(p.absolute, p.dir));
    const files = new Set(checks.flatMap((list) => list.map(([dir]) => path.relative(this.ctx.workDir, path.join(dir, ".gitignore")))));
    if (files.size === 0) return paths.map(() => false);
    const where = `the entries of ${path.relative(this.ctx.workDir, path.dirname(paths[0]!.absolute)) || "."}`;
    return this.thread.run("ignored", { checks }, `the patterns of ${[...files].join(", ")}`, where);
  }

  /** The files that apply to a path, nearest first, each with the path as it sees it. */
  private checks(absolute: string, dir: boolean): [string, string][] {
    const out: [string, string][] = [];
    for (let parent = path.dirname(absolute); ; parent = path.dirname(parent)) {
      if (this.rules.get(parent)) {
        const relative = path.relative(parent, absolute);
        out.push([parent, dir ? `${relative}/` : relative]);
      }
      if (parent === path.dirname(parent) || !this.rules.has(path.dirname(parent))) return out;
    }
  }

  /** Reads a folder's .gitignore, once. */
  async folder(dir: string): Promise<void> {
    if (this.rules.has(dir)) return;
    this.rules.set(dir, false);
    const file = path.join(dir, ".gitignore");
    let opened;
    try {
      opened = openRegular(file, file, false, this.ctx.guard.workDevice);
    } catch {
      return;
    }
    try {
      if (!this.ctx.guard.mayReveal("grep", file, opened.real, this.ctx.granted)) return;
      const { text } = await readHead(opened.fd, IGNORE_FILE_LIMIT, opened.stats.size);
      await this.thread.run("ignoreFile", { dir, text }, `the patterns of ${path.relative(this.ctx.workDir, file)}`, "reading");
      this.rules.set(dir, true);
    } finally {
      closeDescriptor(opened.fd);
    }
  }
}
