import { isUtf8 } from "node:buffer";
import fs from "node:fs";
import { closeDescriptor, readHead, readLines, type ReadText } from "@gatehouse/fs-guard";
import { z } from "zod";
import { openChecked, openToWrite } from "../checked-open.js";
import { replaceContent } from "./replace-content.js";
import { defineTool, limitedResult, OUTPUT_LIMIT, type ToolResult } from "../tool.js";

const filePath = z.string({ error: "path must be a string" }).min(1, "path must not be empty");

/** The most read_file reads of one file: enough to cut its output exactly, never the whole of a huge file. */
export const READ_LIMIT = 4 * 1024 * 1024;
/** The largest file edit_file rewrites: it holds the file and its new text in memory at once. */
export const EDIT_LIMIT = 16 * 1024 * 1024;

/** Runs `use` on an open descriptor, closing it after. */
async function using<T>(fd: number, use: (fd: number) => Promise<T>): Promise<T> {
  try {
    return await use(fd);
  } finally {
    closeDescriptor(fd);
  }
}

/**
 * Whether a file read as `text` holds UTF-8 text: a byte that is not UTF-8 reads as U+FFFD, so
 * only a text holding one is checked again, on the file's bytes.
 */
function isText(fd: number, text: string, size: number): boolean {
  if (!text.includes("\uFFFD")) return true;
  const bytes = Buffer.alloc(size);
  return isUtf8(bytes.subarray(0, fs.readSync(fd, bytes, 0, size, 0)));
}

function shown(read: ReadText, shownPath: string): ToolResult {
  if (!read.more) return limitedResult(true, read.text);
  const cut = limitedResult(true, read.text);
  const note = `\n… [read_file read the first ${READ_LIMIT} bytes of ${shownPath}; give offset and limit to read further]`;
  return { ...cut, output: cut.output + note, truncated: true };
}

export const readFile = defineTool({
  name: "read_file",
  opensChecked: true,
  description: "Read a text file. offset is the first line (1-based), limit the number of lines.",
  tier: "read",
  input: z.object({ path: filePath, offset: z.number().int().min(1).optional(), limit: z.number().int().min(1).optional(), raw: z.boolean().optional() }),
  async run(args, ctx) {
    const file = openChecked(ctx, "read_file", args.path);
    return using(file.fd, async (fd) => {
      if (args.raw) {
        const read = await readHead(fd, READ_LIMIT, file.stats.size);
        if (read.more) return { ok: false, output: `${args.path} is larger than ${READ_LIMIT} bytes` };
        return isText(fd, read.text, file.stats.size) ? { ok: true, output: read.text } : { ok: false, output: `${args.path} is not UTF-8 text` };
      }
      if (args.offset === undefined && args.limit === undefined) return shown(await readHead(fd, READ_LIMIT, file.stats.size), args.path);
      return shown(await readLines(fd, (args.offset ?? 1) - 1, args.limit ?? Infinity, Math.min(READ_LIMIT, 4 * OUTPUT_LIMIT)), args.path);
    });
  },
});

export const writeFile = defineTool({
  name: "write_file",
  opensChecked: true,
  description: "Write a text file, creating folders as needed; replaces the file if it exists.",
  tier: "write",
  input: z.object({ path: filePath, content: z.string({ error: "content must be a string" }) }),
  async run(args, ctx) {
    const file = openToWrite(ctx, "write_file", args.path, await ctx.steeringLinks());
    return using(file.fd, async (fd) => {
      replaceContent(fd, args.content, args.path);
      return { ok: true, output: `wrote ${Buffer.byteLength(args.content)} bytes to ${args.path}` };
    });
  },
});

export const editFile = defineTool({
  name: "edit_file",
  opensChecked: true,
  description: "Replace an exact string in a file: it must occur once unless replace_all is true.",
  tier: "write",
  input: z.object({
    path: filePath,
    old_string: z.string().min(1, "old_string must not be empty"),
    new_string: z.string({ error: "new_string must be a string" }),
    replace_all: z.boolean().optional(),
  }),
  async run(args, ctx) {
    const file = openChecked(ctx, "edit_file", args.path, await ctx.steeringLinks());
    return using(file.fd, async (fd) => {
      const read = await readHead(fd, EDIT_LIMIT, file.stats.size);
      if (read.more) return { ok: false, output: `edit_file ${args.path}: the file is larger than ${EDIT_LIMIT} bytes` };
      const text = read.text;
      // The whole text is written back: a byte that is not UTF-8 would come back as U+FFFD.
      if (!isText(fd, text, file.stats.size))
        return { ok: false, output: `edit_file ${args.path}: the file is not UTF-8 text, and an edit would rewrite its other bytes; nothing was changed` };
      const count = text.split(args.old_string).length - 1;
      if (count === 0) return { ok: false, output: `edit_file ${args.path}: old_string was not found in the file` };
      if (count > 1 && !args.replace_all)
        return { ok: false, output: `edit_file ${args.path}: old_string occurs ${count} times; give more context to make it unique, or set replace_all` };
      const next = args.replace_all ? text.split(args.old_string).join(args.new_string) : text.replace(args.old_string, () => args.new_string);
      replaceContent(fd, next, args.path);
      return { ok: true, output: `replaced ${args.replace_all ? count : 1} occurrence(s) in ${args.path}` };
    });
  },
});
