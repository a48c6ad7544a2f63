import { statSync } from "node:fs";
import path from "node:path";
import { closeDescriptor, FileRefusedError, openRegular, readLineChunks, type LineChunk } from "@gatehouse/fs-guard";
import { z } from "zod";
import { checkSearchRoot } from "../checked-open.js";
import { defineTool, limitedResult, type ToolContext, type ToolResult } from "../tool.js";
import { GlobMatcher } from "./glob-matcher.js";
import { LineMatcher } from "./line-matcher.js";
import { PatternThread } from "./pattern-thread.js";
import { PatternRefusedError } from "../errors.js";
import { newTally, tallyNote, walk, type Tally } from "./search-walk.js";

/** The most matching lines one grep gives. */
const MAX_MATCHES = 5_000;
/** The longest line grep searches: a longer one is searched in its first part. */
const MAX_LINE = 1024 * 1024;
/** Text handed to the pattern's thread at once: small files go together, a big one in parts. */
const BATCH_CHARS = 256 * 1024;

/** Files whose names are matched against grep's include at once. */
const INCLUDE_BATCH = 256;

const includeIgnored = z.boolean().optional().describe("also search files that .gitignore ignores, and node_modules (default false)");

/** A file with a NUL byte in its first part is no text: grep -I skips it too. */
const isBinary = (head: Buffer) => head.includes(0);

/**
 * Whether glob may list a file: judged where it really leads, as read_file would judge it. A
 * symlink is listed only when it leads to a regular file (glob lists files, not folders).
 */
function listable(ctx: ToolContext, file: string, tally: Tally): boolean {
  let real: string;
  try {
    real = ctx.guard.realPath(file);
  } catch {
    tally.unreadable++;
    return false;
  }
  if (real !== file && !statSync(real, { throwIfNoEntry: false })?.isFile()) return false;
  if (ctx.guard.mayReveal("glob", file, real, ctx.granted)) return true;
  tally.skipped++;
  return false;
}

export const glob = defineTool({
  name: "glob",
  opensChecked: true,
  description:
    "List files whose path (relative to the search folder) matches a glob pattern; files .gitignore ignores are left out unless include_ignored is set.",
  tier: "read",
  input: z.object({ pattern: z.string().min(1, "pattern must not be empty"), path: z.string().optional(), include_ignored: includeIgnored }),
  async run(args, ctx: ToolContext) {
    const root = checkSearchRoot(ctx, "glob", args.path ?? ".");
    const thread = new PatternThread("glob");
    const tally = newTally();
    try {
      const files: string[] = [];
      for await (const file of walk(ctx, root, args.include_ignored ?? false, tally, thread)) files.push(file);
      const matcher = new GlobMatcher(args.pattern, false, thread);
      const shown = (file: string) => path.relative(ctx.workDir, file) || ".";
      const matched = await matcher.matching(files, (file) => path.relative(root, file), shown);
      const found = matched.filter((file) => listable(ctx, file, tally)).map(shown);
      found.sort();
      return limitedResult(true, `${found.join("\n")}${found.length === 0 ? "(no files match)" : ""}${tallyNote(tally)}`);
    } catch (err) {
      if (err instanceof PatternRefusedError) return { ok: false, output: err.message };
      throw err;
    } finally {
      thread.release();
    }
  },
});

/** Lines waiting for the pattern, from one file or several, and the matches found so far. */
class Matches {
  readonly lines: string[] = [];
  private pending: { file: string; chunk: LineChunk }[] = [];
  private chars = 0;

  constructor(private readonly matcher: LineMatcher) {}

  get full(): boolean {
    return this.lines.length >= MAX_MATCHES;
  }

  async add(file: string, chunk: LineChunk): Promise<void> {
    this.pending.push({ file, chunk });
    this.chars += chunk.text.length;
    if (this.chars >= BATCH_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.chars = 0;
    const others = new Set(batch.map((b) => b.file)).size - 1;
    const where = `${batch[0]!.file}${others > 0 ? ` and ${others} other file(s)` : ""}`;
    const found = await this.matcher.match(
      batch.map((b) => b.chunk.text),
      where,
    );
    found.forEach((lines, i) => {
      const { file, chunk } = batch[i]!;
      for (const [index, line] of lines) if (!this.full) this.lines.push(`${file}:${chunk.first + index + 1}:${line}`);
    });
  }
}

/** The items of `source` in arrays of up to `size`. */
async function* batches<T>(source: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  const batch: T[] = [];
  for await (const item of source) {
    batch.push(item);
    if (batch.length >= size) yield batch.splice(0);
  }
  if (batch.length > 0) yield batch;
}

/**
 * Searches one file, read from the object really opened and checked as read_file would be, in
 * chunks; one read_file's rules or the sandbox keep from view is counted as skipped.
 */
async function searchFile(ctx: ToolContext, file: string, matches: Matches, tally: Tally): Promise<void> {
  const shown = path.relative(ctx.workDir, file);
  let opened;
  try {
    opened = openRegular(file, shown, false, ctx.guard.workDevice);
  } catch (err) {
    // A symlink to a folder is no file to search; grep -r does not follow one either.
    if (!(err instanceof FileRefusedError && err.code === "NOT_REGULAR")) tally.unreadable++;
    return;
  }
  try {
    if (!ctx.guard.mayReveal("grep", file, opened.real, ctx.granted)) {
      tally.skipped++;
      return;
    }
    for await (const chunk of readLineChunks(opened.fd, MAX_LINE, isBinary)) {
      await matches.add(shown, chunk);
      if (matches.full || ctx.signal.aborted) return;
    }
  } finally {
    closeDescriptor(opened.fd);
  }
}

export const grep = defineTool({
  name: "grep",
  opensChecked: true,
  description:
    "Search files for lines matching a regular expression; path may be a file or a folder. Files .gitignore ignores are left out unless include_ignored is set.",
  tier: "read",
  input: z.object({
    pattern: z.string().min(1, "pattern must not be empty"),
    path: z.string().optional(),
    include: z.string().optional(),
    ignore_case: z.boolean().optional(),
    include_ignored: includeIgnored,
  }),
  async run(args, ctx: ToolContext): Promise<ToolResult> {
    const flags = args.ignore_case ? "i" : "";
    try {
      new RegExp(args.pattern, flags);
    } catch (err) {
      return { ok: false, output: `grep: pattern is not a valid regular expression: ${(err as Error).message}` };
    }
    const root = checkSearchRoot(ctx, "grep", args.path ?? ".");
    const thread = new PatternThread("grep");
    const include = args.include ? new GlobMatcher(args.include, true, thread) : null;
    const tally = newTally();
    const matches = new Matches(new LineMatcher(args.pattern, flags, thread));
    try {
      for await (const files of batches(walk(ctx, root, args.include_ignored ?? false, tally, thread), INCLUDE_BATCH)) {
        const shown = (file: string) => path.relative(ctx.workDir, file);
        for (const file of include ? await include.matching(files, (f) => path.basename(f), shown) : files) {
          await searchFile(ctx, file, matches, tally);
          if (matches.full || ctx.signal.aborted) break;
        }
        if (matches.full || ctx.signal.aborted) break;
      }
      await matches.flush();
    } catch (err) {
      if (err instanceof PatternRefusedError) return { ok: false, output: err.message };
      throw err;
    } finally {
      thread.release();
    }
    const { lines } = matches;
    return limitedResult(true, `${lines.join("\n")}${lines.length === 0 ? "(no matches)" : ""}${tallyNote(tally)}`);
  },
});
