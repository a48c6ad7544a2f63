import fs from "node:fs";
import path from "node:path";

/** Where git keeps what names the commits of a repository, as `git rev-parse` located them. */
export interface GitPlaces {
  gitDir: string;
  commonDir: string;
  index: string;
}

/**
 * The first of git's files a history listing opens (HEAD, the settings, the index, packed-refs,
 * every ref and reflog) that is there and is not a regular file, or null. A FIFO among them blocks
 * git for good; one with a writer could feed it a ref that the command would not read.
 */
export async function irregularRefFile(places: GitPlaces): Promise<string | null> {
  const { gitDir, commonDir, index } = places;
  const files = [path.join(gitDir, "HEAD"), path.join(commonDir, "config"), path.join(commonDir, "packed-refs"), index];
  for (const file of files) if (!(await regularOrAbsent(file))) return file;
  const trees = new Set([gitDir, commonDir].flatMap((dir) => [path.join(dir, "refs"), path.join(dir, "logs")]));
  for (const tree of trees) {
    const found = await irregularIn(tree);
    if (found) return found;
  }
  return null;
}

async function regularOrAbsent(file: string): Promise<boolean> {
  const stat = await fs.promises.stat(file).catch((err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? null : undefined));
  return stat === null || (stat !== undefined && stat.isFile());
}

async function irregularIn(tree: string): Promise<string | null> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(tree, { withFileTypes: true, recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ENOTDIR") return tree;
    throw err;
  }
  for (const e of entries) {
    if (e.isFile() || e.isDirectory()) continue;
    const file = path.join(e.parentPath, e.name);
    // A symlinked ref (core.preferSymlinkRefs) is fine when it leads to a regular file.
    if (!e.isSymbolicLink() || !(await regularOrAbsent(file))) return file;
  }
  return null;
}
