import fs from "node:fs";
import { WriteIncompleteError } from "../errors.js";

/** Writes the whole of `bytes` at `position`. */
function writeAll(fd: number, bytes: Buffer, position: number): void {
  for (let done = 0; done < bytes.length;) done += fs.writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/**
 * Replaces an open file's content with `text`, so that a write the disk cannot take leaves the
 * file as it was. The room the new text needs past the file's end is taken first; when that
 * fails, the file is cut back to its old length, its old bytes untouched. The rest overwrites
 * the old bytes in place, which needs no new room. (Truncating first and writing after lost the
 * whole file to a full disk.)
 */
export function replaceContent(fd: number, text: string, shownPath: string): void {
  const bytes = Buffer.from(text);
  const size = fs.fstatSync(fd).size;
  if (bytes.length > size) {
    try {
      writeAll(fd, bytes.subarray(size), size);
    } catch (err) {
      fs.ftruncateSync(fd, size);
      throw new WriteIncompleteError(`${shownPath} was left as it was: ${(err as Error).message}`);
    }
  }
  writeAll(fd, bytes.subarray(0, Math.min(size, bytes.length)), 0);
  if (bytes.length < size) fs.ftruncateSync(fd, bytes.length);
}
