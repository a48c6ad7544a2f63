import path from "node:path";
import { closeDescriptor, openRegular, readHead } from "@gatehouse/fs-guard";
import { isInside } from "@gatehouse/policy";
import ignore, { type Ignore } from "ignore";
import type { ToolContext } from "../tool.js";

/** The most of one .gitignore file read. */
const IGNORE_FILE_LIMIT = 256 * 1024;

/**
 * The .gitignore files that apply to a search, as git applies them: each folder's file to the
 * paths below it, from the work directory (or the search's root, when it lies outside) down.
 * A .gitignore is read as any file a search meets: opened first, only a regular file that
 * read_file could read; one that cannot be read ignores nothing.
 */
export class GitIgnores {
  private readonly rules = new Map<string, Ignore | null>();

  constructor(private readonly ctx: ToolContext) {}

  /** Loads the files of the folders from the work directory down to `root` (a search's start). */
  async above(root: string): Promise<void> {
    const top = isInside(root, this.ctx.workDir) ? this.ctx.workDir : root;
    for (let dir = root; ; dir = path.dirname(dir)) {
      await this.folder(dir);
      if (dir === top || dir === path.dirname(dir)) return;
    }
  }

  /** Whether a path (a folder when `dir`) is ignored by the files of the folders above it. */
  ignores(absolute: string, dir: boolean): boolean {
    for (let parent = path.dirname(absolute); ; parent = path.dirname(parent)) {
      const rules = this.rules.get(parent);
      if (rules) {
        const relative = path.relative(parent, absolute);
        if (rules.ignores(dir ? `${relative}/` : relative)) return true;
      }
      if (parent === path.dirname(parent) || !this.rules.has(path.dirname(parent))) return false;
    }
  }

  /** Reads a folder's .gitignore, once. */
  async folder(dir: string): Promise<void> {
    if (this.rules.has(dir)) return;
    this.rules.set(dir, null);
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
      this.rules.set(dir, ignore().add(text));
    } finally {
      closeDescriptor(opened.fd);
    }
  }
}
