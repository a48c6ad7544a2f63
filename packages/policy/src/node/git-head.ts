import fs from "node:fs";
import path from "node:path";

/** Whether a folder on this machine has a HEAD (a file or a link, as git takes either): a git directory (isGitDirectory), or one in the making. */
export function hasGitHead(folder: string): boolean {
  return fs.lstatSync(path.join(folder, "HEAD"), { throwIfNoEntry: false }) !== undefined;
}
