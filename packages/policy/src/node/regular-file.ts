import fs from "node:fs";

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  return "not a regular file";
}

/**
 * The text of a file that must be a regular file of at most `maxBytes`. It is opened without
 * blocking and checked on the open descriptor, so a FIFO or device put in its place can neither
 * stall the reader nor be swapped in between a check and the read; a file that grows past the
 * limit while it is read is refused too. Failures are plain errors that say what the file is.
 */
export function readRegularFile(file: string, maxBytes = Number.MAX_SAFE_INTEGER): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new Error(`it is ${kindOf(stat)}, not a regular file`);
    if (maxBytes === Number.MAX_SAFE_INTEGER) return fs.readFileSync(fd, "utf8");
    const tooLarge = () => new Error(`it is larger than ${maxBytes} bytes`);
    if (stat.size > maxBytes) throw tooLarge();
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = fs.readSync(fd, buffer, length, buffer.length - length, null)) > 0;) length += n;
    if (length > maxBytes) throw tooLarge();
    return buffer.toString("utf8", 0, length);
  } finally {
    fs.closeSync(fd);
  }
}
