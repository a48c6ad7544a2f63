import fs from "node:fs";
import path from "node:path";
import { isInside } from "@gatehouse/policy";

/**
 * Removal of paths inside a folder that never acts outside it, whatever a command put in place of
 * a folder on the way: each folder is opened by descriptor without following a symlink, and every
 * name is looked up relative to the descriptor (`/proc/self/fd/N/name`, the kernel's own openat),
 * so a symlink anywhere on the path is refused rather than followed.
 */

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
const FOLDER_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** What became of one path. */
export interface Removal {
  path: string;
  outcome: "removed" | "absent" | "refused";
  /** Why it was refused. */
  reason?: string;
}

/** `name` in the folder open as `fd`, looked up by the kernel relative to that folder. */
export const at = (fd: number, name: string) => `/proc/self/fd/${fd}/${name}`;

/** Removes each of `paths` (files or folders, inside `root`) that exists, as described above. */
export function removeInside(root: string, paths: readonly string[]): Removal[] {
  return paths.map((p) => {
    try {
      return removeOne(root, p);
    } catch (err) {
      // A folder on the way that is gone holds nothing to remove.
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { path: p, outcome: "absent" };
      return { path: p, outcome: "refused", reason: (err as Error).message };
    }
  });
}

function removeOne(root: string, target: string): Removal {
  if (!isInside(target, root) || target === root) return { path: target, outcome: "refused", reason: "not inside the work directory" };
  const parentFd = openInside(root, path.dirname(target));
  try {
    const name = path.basename(target);
    const stat = fs.lstatSync(at(parentFd, name), { throwIfNoEntry: false });
    if (!stat) return { path: target, outcome: "absent" };
    removeEntry(parentFd, name, stat.isDirectory());
    return { path: target, outcome: "removed" };
  } finally {
    fs.closeSync(parentFd);
  }
}

/**
 * The folder `dir` opened by descriptor from `root`, one name at a time, none followed if a
 * symlink; its path read back from the descriptor must be `dir` itself.
 */
export function openInside(root: string, dir: string): number {
  let fd = fs.openSync(root, O_RDONLY | O_DIRECTORY);
  try {
    let walked = root;
    for (const name of path.relative(root, dir).split(path.sep).filter(Boolean)) {
      walked = path.join(walked, name);
      const next = openFolder(fd, name, walked);
      fs.closeSync(fd);
      fd = next;
    }
    const real = fs.readlinkSync(`/proc/self/fd/${fd}`);
    if (real !== dir) throw new Error(`${dir} leads to ${real}`);
    return fd;
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The folder `name` in the one open as `fd`, not followed if a symlink; `shown` names it in errors. */
export function openFolder(fd: number, name: string, shown: string): number {
  try {
    return fs.openSync(at(fd, name), FOLDER_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR") throw new Error(`${shown} is a symlink or not a folder now`);
    throw err;
  }
}

/** Removes `name` in the folder open as `parentFd`: a folder's entries first, each by its own descriptor. */
export function removeEntry(parentFd: number, name: string, isDir: boolean): void {
  if (!isDir) return fs.unlinkSync(at(parentFd, name));
  const fd = openFolder(parentFd, name, name);
  try {
    for (const e of fs.readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true })) removeEntry(fd, e.name, e.isDirectory());
  } finally {
    fs.closeSync(fd);
  }
  fs.rmdirSync(at(parentFd, name));
}
