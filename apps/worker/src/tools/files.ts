import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool, limitedResult } from "../tool.js";

const filePath = z.string({ error: "path must be a string" }).min(1, "path must not be empty");

/** Files up to this size are read in one blocking call: four thread-pool trips cost more. */
const SMALL_FILE = 256 * 1024;

/** A regular file's text; anything else (a folder, a FIFO that would block) is refused. */
async function readText(file: string, shown: string): Promise<string> {
  const stat = fsSync.statSync(file);
  if (!stat.isFile()) throw new Error(`${shown} is not a regular file`);
  return stat.size <= SMALL_FILE ? fsSync.readFileSync(file, "utf8") : fs.readFile(file, "utf8");
}

export const readFile = defineTool({
  name: "read_file",
  description: "Read a text file. offset is the first line (1-based), limit the number of lines.",
  tier: "read",
  input: z.object({ path: filePath, offset: z.number().int().min(1).optional(), limit: z.number().int().min(1).optional(), raw: z.boolean().optional() }),
  async run(args, ctx) {
    const file = ctx.guard.check("read_file", args.path);
    const text = await readText(file, args.path);
    if (args.raw) return { ok: true, output: text };
    if (args.offset === undefined && args.limit === undefined) return limitedResult(true, text);
    const lines = text.split("\n");
    const start = (args.offset ?? 1) - 1;
    return limitedResult(true, lines.slice(start, args.limit ? start + args.limit : undefined).join("\n"));
  },
});

export const writeFile = defineTool({
  name: "write_file",
  description: "Write a text file, creating folders as needed; replaces the file if it exists.",
  tier: "write",
  input: z.object({ path: filePath, content: z.string({ error: "content must be a string" }) }),
  async run(args, ctx) {
    const file = ctx.guard.check("write_file", args.path);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, args.content);
    return { ok: true, output: `wrote ${Buffer.byteLength(args.content)} bytes to ${args.path}` };
  },
});

export const editFile = defineTool({
  name: "edit_file",
  description: "Replace an exact string in a file: it must occur once unless replace_all is true.",
  tier: "write",
  input: z.object({
    path: filePath,
    old_string: z.string().min(1, "old_string must not be empty"),
    new_string: z.string({ error: "new_string must be a string" }),
    replace_all: z.boolean().optional(),
  }),
  async run(args, ctx) {
    const file = ctx.guard.check("edit_file", args.path);
    const text = await readText(file, args.path);
    const count = text.split(args.old_string).length - 1;
    if (count === 0) return { ok: false, output: `edit_file ${args.path}: old_string was not found in the file` };
    if (count > 1 && !args.replace_all)
      return { ok: false, output: `edit_file ${args.path}: old_string occurs ${count} times; give more context to make it unique, or set replace_all` };
    const next = args.replace_all ? text.split(args.old_string).join(args.new_string) : text.replace(args.old_string, () => args.new_string);
    await fs.writeFile(file, next);
    return { ok: true, output: `replaced ${args.replace_all ? count : 1} occurrence(s) in ${args.path}` };
  },
});
