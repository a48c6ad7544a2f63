import fs from "node:fs";
import { StringDecoder } from "node:string_decoder";

/** Bytes read per step: a huge file is read in steps, never in one piece, and never all. */
const CHUNK = 256 * 1024;
/** A regular file this small is read without the thread pool: its trips cost more than the read. */
const SMALL_FILE = 64 * 1024;

const readAt = (fd: number, buffer: Buffer, position: number) =>
  new Promise<number>((resolve, reject) => fs.read(fd, buffer, 0, buffer.length, position, (err, n) => (err ? reject(err) : resolve(n))));

/** What a bounded read returned: the text, and whether the file held more than the bound. */
export interface ReadText {
  text: string;
  more: boolean;
}

/**
 * At most `maxBytes` of the file as UTF-8 text, read in chunks from position 0. The size fstat
 * gave (`size`) only chooses how to read: a file that grows while it is read stops at the bound
 * all the same.
 */
export async function readHead(fd: number, maxBytes: number, size = Infinity): Promise<ReadText> {
  const parts: Buffer[] = [];
  let total = 0;
  while (total < maxBytes + 1) {
    // Blocking reads only while little has been read: a small file that grows goes on in the pool.
    const sync = size < SMALL_FILE && total < SMALL_FILE;
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1 - total, sync ? Math.max(size + 1, 4096) : CHUNK));
    const n = sync ? fs.readSync(fd, buffer, 0, buffer.length, total) : await readAt(fd, buffer, total);
    if (n === 0) break;
    parts.push(buffer.subarray(0, n));
    total += n;
    // A regular file's read returns less than asked only at its end: a small one is read in one step.
    if (sync && n < buffer.length) break;
  }
  const all = Buffer.concat(parts, total);
  const more = total > maxBytes;
  return { text: new StringDecoder("utf8").end(more ? all.subarray(0, maxBytes) : all), more };
}

/**
 * Lines `first` (0-based) to `first + count` of the file, at most `maxChars` characters of them,
 * found by reading it chunk by chunk: only the lines asked for are kept, so memory stays bounded
 * whatever the file's length.
 */
export async function readLines(fd: number, first: number, count: number, maxChars: number): Promise<ReadText> {
  const decoder = new StringDecoder("utf8");
  const kept: string[] = [];
  let line = 0;
  let partial = "";
  let keptChars = 0;
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (let position = 0; ;) {
    const n = await readAt(fd, buffer, position);
    position += n;
    const pieces = (partial + (n === 0 ? decoder.end() : decoder.write(buffer.subarray(0, n)))).split("\n");
    partial = n === 0 ? "" : pieces.pop()!;
    if (partial.length > maxChars) {
      // One endless line: only its start can be shown, and before the range it is not kept at all.
      if (pieces.length === 0 && line >= first) return { text: [...kept, partial.slice(0, maxChars - keptChars)].join("\n"), more: true };
      if (pieces.length === 0) partial = "";
    }
    for (const piece of pieces) {
      if (line >= first && line < first + count) {
        kept.push(piece.slice(0, maxChars - keptChars));
        keptChars += piece.length + 1;
        if (keptChars > maxChars) return { text: kept.join("\n"), more: true };
      }
      line++;
      if (line >= first + count) return { text: kept.join("\n"), more: false };
    }
    if (n === 0) return { text: kept.join("\n"), more: false };
  }
}

/** Whole lines of a file, a chunk at a time, and the number of the chunk's first line (0-based). */
export interface LineChunk {
  text: string;
  first: number;
}

/**
 * The file's lines in chunks of whole lines, read CHUNK bytes at a time: memory stays bounded
 * whatever the file's size. A line longer than `maxLine` characters is given as its first
 * `maxLine`, the rest of it skipped. The first chunk's bytes are given to `binary`, which stops
 * the read when it says the file is no text.
 */
export async function* readLineChunks(fd: number, maxLine: number, binary: (head: Buffer) => boolean): AsyncGenerator<LineChunk> {
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.allocUnsafe(CHUNK);
  let partial = "";
  let skipping = false;
  let line = 0;
  for (let position = 0; ;) {
    const n = await readAt(fd, buffer, position);
    if (position === 0 && binary(buffer.subarray(0, n))) return;
    position += n;
    if (n === 0) {
      const rest = partial + decoder.end();
      if (rest && !skipping) yield { text: rest.slice(0, maxLine), first: line };
      return;
    }
    const pieces = (partial + decoder.write(buffer.subarray(0, n))).split("\n");
    partial = pieces.pop()!;
    if (skipping && pieces.length > 0) {
      pieces.shift();
      skipping = false;
    }
    if (skipping) partial = "";
    else if (partial.length > maxLine && pieces.length === 0) {
      pieces.push(partial.slice(0, maxLine));
      partial = "";
      skipping = true;
    }
    const kept = pieces.map((p) => (p.length > maxLine ? p.slice(0, maxLine) : p));
    if (kept.length > 0) yield { text: kept.join("\n"), first: line };
    line += kept.length;
  }
}
