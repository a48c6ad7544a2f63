import fs from "node:fs";
import path from "node:path";

const { O_RDONLY, O_WRONLY, O_RDWR, O_NONBLOCK, O_NOCTTY, O_DIRECTORY, O_NOFOLLOW, O_CREAT, O_EXCL } = fs.constants;

/** Why a file was not opened or read: not a regular file, on a pseudo file system, gone meanwhile, too large, and so on. */
export class FileRefusedError extends Error {
  override readonly name = "FileRefusedError";
  constructor(
    readonly code: "NOT_REGULAR" | "PSEUDO_FS" | "DELETED" | "SYMLINK_TO_NOTHING" | "TOO_LARGE" | "OUTSIDE_FOLDER" | "OTHER_NAMESPACE",
    message: string,
  ) {
    super(message);
  }
}

/** A file opened for a tool: the descriptor, the path the kernel really opened, and what it is. */
export interface OpenedFile {
  fd: number;
  /** The opened object's own path, read back from the descriptor: no name that can change in between. */
  real: string;
  stats: fs.Stats;
}

// File systems whose "regular files" are the kernel's views (process memory, logs that block on read, controls).
const PSEUDO_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, "procfs"],
  [0x62656572, "sysfs"],
  [0x64626720, "debugfs"],
  [0x74726163, "tracefs"],
  [0x73636673, "securityfs"],
  [0x62656570, "configfs"],
  [0x63677270, "cgroup2"],
  [0x27e0eb, "cgroup"],
  [0xde5e81e4, "efivarfs"],
  [0x6165676c, "pstore"],
  [0xcafe4a11, "bpf"],
  [0x65735543, "fusectl"],
]);

const descriptorPath = (fd: number) => `/proc/self/fd/${fd}`;

/** The path of what `fd` refers to, as the kernel names it. */
export function pathOfDescriptor(fd: number): string {
  const real = fs.readlinkSync(descriptorPath(fd));
  if (!real.startsWith("/")) throw new FileRefusedError("NOT_REGULAR", `the opened file has no path (${real})`);
  return real;
}

/**
 * Refuses an object that its own path does not name in this process: one reached through
 * `/proc/PID/root` or `/proc/PID/cwd` lies in another mount namespace (a container, another
 * sandbox), and reads back as a path that here names another object, or none (`real` null: it
 * does not resolve here at all).
 */
export function checkReachable(opened: fs.Stats, real: string | null, shown: string): void {
  const here = real === null ? undefined : fs.statSync(real, { throwIfNoEntry: false });
  if (here?.dev !== opened.dev || here.ino !== opened.ino)
    throw new FileRefusedError(
      "OTHER_NAMESPACE",
      `${shown} leads into another mount namespace (through /proc): ${real ?? "its real path"} here is not what it opens`,
    );
}

/** A folder's descriptor with its path read back, checked to be reachable by that path. */
function folderAt(fd: number): OpenedFolder {
  const real = pathOfDescriptor(fd);
  checkReachable(fs.fstatSync(fd), real, real);
  return { fd, real };
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

/** Runs `inspect` on a fresh descriptor; the descriptor is closed when it throws. */
function inspected<T>(fd: number, inspect: (fd: number) => T): T {
  try {
    return inspect(fd);
  } catch (err) {
    closeQuietly(fd);
    throw err;
  }
}

/**
 * Only regular files on an ordinary file system: a FIFO, a device or a procfs file can block or
 * never end. A file on `ordinaryDevice` (the work directory's, mounted while it is used) needs no
 * look at its file system.
 */
function regularFile(fd: number, shown: string, ordinaryDevice?: number): OpenedFile {
  const stats = fs.fstatSync(fd);
  if (!stats.isFile()) throw new FileRefusedError("NOT_REGULAR", `${shown} is not a regular file`);
  const pseudo = stats.dev === ordinaryDevice ? undefined : PSEUDO_FILE_SYSTEMS.get(fs.statfsSync(descriptorPath(fd)).type);
  if (pseudo) throw new FileRefusedError("PSEUDO_FS", `${shown} is on ${pseudo}, whose files are the kernel's views, not files to read`);
  const real = pathOfDescriptor(fd);
  if (stats.nlink === 0) throw new FileRefusedError("DELETED", `${shown} was removed while it was being opened`);
  checkReachable(stats, real, shown);
  return { fd, real, stats };
}

/**
 * Opens an existing regular file, symlinks followed, without blocking (O_NONBLOCK: a FIFO or a
 * device never holds the open), and reads back what was opened.
 */
export function openRegular(absolute: string, shown: string, write = false, ordinaryDevice?: number): OpenedFile {
  const fd = fs.openSync(absolute, (write ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_NOCTTY);
  return inspected(fd, (d) => regularFile(d, shown, ordinaryDevice));
}

/** A folder opened by descriptor, with its real path: what is made in it cannot be redirected elsewhere. */
export interface OpenedFolder {
  fd: number;
  real: string;
}

/** The deepest existing folder on the way to `absolute`, opened, and the names still to make under it. */
export function openDeepestFolder(absolute: string): { folder: OpenedFolder; missing: string[] } {
  const missing: string[] = [];
  for (let dir = absolute; ; dir = path.dirname(dir)) {
    try {
      const fd = fs.openSync(dir, O_RDONLY | O_DIRECTORY | O_NOCTTY);
      return { folder: inspected(fd, folderAt), missing: missing.reverse() };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ENOTDIR") || dir === "/") throw err;
      // A dangling symlink on the way is not a folder to make: mkdir would fail on it anyway.
      missing.push(path.basename(dir));
    }
  }
}

/** Makes `name` as a folder in `parent` (kept if it exists) and opens it without following a symlink there. */
export function makeFolderIn(parent: OpenedFolder, name: string): OpenedFolder {
  const at = `${descriptorPath(parent.fd)}/${name}`;
  try {
    fs.mkdirSync(at);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const fd = fs.openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NOCTTY);
  return inspected(fd, folderAt);
}

/** Refuses `name` in `parent` when it is a symlink: a file to make there would be made through it. */
export function refuseLinkIn(parent: OpenedFolder, name: string, shown: string): void {
  if (fs.lstatSync(`${descriptorPath(parent.fd)}/${name}`, { throwIfNoEntry: false })?.isSymbolicLink())
    throw new FileRefusedError("SYMLINK_TO_NOTHING", `${shown} is a symlink to a file that does not exist; files are not made through symlinks`);
}

// Linux's O_PATH: a descriptor that only names the object; opening a device or a FIFO this way does nothing to it.
const O_PATH = 0o10000000;

/** Whatever `absolute` leads to (a folder, a file), held by a descriptor that only names it, with its path read back. */
export function openAny(absolute: string): OpenedFolder {
  const fd = fs.openSync(absolute, O_PATH);
  return inspected(fd, (d) => ({ fd: d, real: pathOfDescriptor(d) }));
}

/** Creates `name` in `parent` as a new regular file; never through a symlink, never over an existing file. */
export function createIn(parent: OpenedFolder, name: string, shown: string): OpenedFile {
  let fd: number;
  try {
    fd = fs.openSync(`${descriptorPath(parent.fd)}/${name}`, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o666);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") refuseLinkIn(parent, name, shown);
    throw err;
  }
  return inspected(fd, (d) => regularFile(d, shown));
}

export { closeQuietly as closeDescriptor };
