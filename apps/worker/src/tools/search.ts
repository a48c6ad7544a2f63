import fs from "node:fs/promises";
import { statSync } from "node:fs";
import path from "node:path";
import { closeDescriptor, FileRefused, openRegular, readHead } from "@gatehouse/fs-guard";
import picomatch from "picomatch";
import { z } from "zod";
import { defineTool, limitedResult, type ToolContext } from "../tool.js";

const MAX_FILES = 20_000;
/** The most of one file grep searches. */
const GREP_FILE_LIMIT = 4 * 1024 * 1024;
const SKIP_DIRS = new Set([".git", "node_modules"]);

/** What a search could not look at, counted so that its output can say so. */
interface Unreadable {
  count: number;
}

/** Every file under `root`, depth first, skipping .git and node_modules; folders it cannot list are counted. */
async function* walk(root: string, signal: AbortSignal, unreadable: Unreadable): AsyncGenerator<string> {
  const stat = await fs.stat(root);
  if (!stat.isDirectory()) {
    yield root;
    return;
  }
  const stack = [root];
  let seen = 0;
  while (stack.length > 0 && seen < MAX_FILES && !signal.aborted) {
    const dir = stack.pop()!;
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => {
      unreadable.count++;
      return [];
    });
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) stack.push(full);
      } else if (e.isFile() || e.isSymbolicLink()) {
        seen++;
        yield full;
      }
    }
  }
}

function skippedNote(n: number, unreadable: Unreadable): string {
  const denied = n > 0 ? `\n(${n} file(s) skipped: read_file does not allow them)` : "";
  return unreadable.count > 0 ? `${denied}\n(${unreadable.count} file(s) or folder(s) could not be read)` : denied;
}

const SKIPPED = Symbol("skipped");
const UNREADABLE = Symbol("unreadable");
const NOT_A_FILE = Symbol("not a file");

/**
 * A file's text for grep, read from the object really opened and checked as read_file would be;
 * SKIPPED when read_file's rules or the sandbox keep it from view, UNREADABLE when it cannot be
 * opened, NOT_A_FILE when it is no regular file.
 */
async function searchable(ctx: ToolContext, file: string): Promise<string | typeof SKIPPED | typeof UNREADABLE | typeof NOT_A_FILE> {
  let opened;
  try {
    opened = openRegular(file, path.relative(ctx.workDir, file), false, ctx.guard.workDevice);
  } catch (err) {
    // A symlink to a folder is no file to search; grep -r does not follow one either.
    return err instanceof FileRefused && err.code === "NOT_REGULAR" ? NOT_A_FILE : UNREADABLE;
  }
  try {
    if (!ctx.guard.mayReveal("grep", file, opened.real, ctx.granted)) return SKIPPED;
    return (await readHead(opened.fd, GREP_FILE_LIMIT, opened.stats.size)).text;
  } finally {
    closeDescriptor(opened.fd);
  }
}

/**
 * Whether glob may list a file: judged where it really leads, as read_file would judge it. A
 * symlink is listed only when it leads to a regular file (glob lists files, not folders).
 */
function listable(ctx: ToolContext, file: string): boolean | typeof SKIPPED | typeof UNREADABLE {
  let real: string;
  try {
    real = ctx.guard.realPath(file);
  } catch {
    return UNREADABLE;
  }
  if (real !== file && !statSync(real, { throwIfNoEntry: false })?.isFile()) return false;
  return ctx.guard.mayReveal("glob", file, real, ctx.granted) || SKIPPED;
}

export const glob = defineTool({
  name: "glob",
  description: "List files whose path (relative to the search folder) matches a glob pattern.",
  tier: "read",
  input: z.object({ pattern: z.string().min(1, "pattern must not be empty"), path: z.string().optional() }),
  async run(args, ctx: ToolContext) {
    const root = ctx.guard.check("glob", args.path ?? ".");
    const match = picomatch(args.pattern, { dot: true });
    const found: string[] = [];
    let skipped = 0;
    const unreadable = { count: 0 };
    for await (const file of walk(root, ctx.signal, unreadable)) {
      const rel = path.relative(root, file);
      if (!match(rel)) continue;
      const reached = listable(ctx, file);
      if (reached === SKIPPED) skipped++;
      else if (reached === UNREADABLE) unreadable.count++;
      else if (reached) found.push(path.relative(ctx.workDir, file) || ".");
    }
    found.sort();
    return limitedResult(true, `${found.join("\n")}${found.length === 0 ? "(no files match)" : ""}${skippedNote(skipped, unreadable)}`);
  },
});

export const grep = defineTool({
  name: "grep",
  description: "Search files for lines matching a regular expression; path may be a file or a folder.",
  tier: "read",
  input: z.object({
    pattern: z.string().min(1, "pattern must not be empty"),
    path: z.string().optional(),
    include: z.string().optional(),
    ignore_case: z.boolean().optional(),
  }),
  async run(args, ctx: ToolContext) {
    let re: RegExp;
    try {
      re = new RegExp(args.pattern, args.ignore_case ? "i" : "");
    } catch (err) {
      return { ok: false, output: `grep: pattern is not a valid regular expression: ${(err as Error).message}` };
    }
    const root = ctx.guard.check("grep", args.path ?? ".");
    const include = args.include ? picomatch(args.include, { dot: true, basename: true }) : null;
    const lines: string[] = [];
    let skipped = 0;
    const unreadable = { count: 0 };
    for await (const file of walk(root, ctx.signal, unreadable)) {
      if (include && !include(path.basename(file))) continue;
      const text = await searchable(ctx, file);
      if (text === SKIPPED) skipped++;
      if (text === UNREADABLE) unreadable.count++;
      if (typeof text !== "string" || text.includes("\0")) continue;
      text.split("\n").forEach((line, i) => {
        if (re.test(line)) lines.push(`${path.relative(ctx.workDir, file)}:${i + 1}:${line}`);
      });
      if (lines.length > 5000) break;
    }
    return limitedResult(true, `${lines.join("\n")}${lines.length === 0 ? "(no matches)" : ""}${skippedNote(skipped, unreadable)}`);
  },
});
