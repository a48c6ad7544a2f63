import fs from "node:fs";
import path from "node:path";
import { isInside, steeringFileOf, steeringHolderOf } from "@gatehouse/policy";
import { hasGitHead } from "@gatehouse/policy/node";
import { ToolRefusedError, TreeTooLargeError } from "./errors.js";
import type { WorkTree } from "./sandbox/work-tree.js";

/**
 * The symlinks of the work tree that stand where a file of the catalogue is named (`.git/config
 * -> ../notes.txt`, `.husky -> scripts`), or a folder that holds some (`.vscode -> vsc`). A write
 * to where one leads changes what the named file holds: the worker's check of a write finds such a
 * link by the device and inode of what it opened.
 */
export class SteeringLinks {
  /**
   * Where the links led when the tree last changed. A target in the work tree is replaced, or a
   * link made again, only by a change the tree sees (a rename in a folder, a new link); a link
   * that leads out of it, or nowhere yet, is looked at again on every write.
   */
  private memo: { version: number; inside: ReadonlyMap<string, string>; elsewhere: string[] } | null = null;
  /** The catalogue's regular files in the tree by device and inode, listed only when a write opens a file with other hard links. */
  private files: { version: number; byInode: ReadonlyMap<string, string> } | null = null;

  constructor(private readonly tree: WorkTree) {}

  /** The links as the tree lists them now; the tree is brought up to date first. */
  async current(): Promise<SteeringLinkTargets> {
    try {
      await this.tree.update();
    } catch (err) {
      if (err instanceof TreeTooLargeError) throw new ToolRefusedError(`the work tree's links to files that steer programs cannot be known: ${err.message}`);
      throw err;
    }
    if (this.memo?.version !== this.tree.version) this.memo = { version: this.tree.version, ...this.sorted(steeringLinksOf(this.tree)) };
    const elsewhere = new Map<string, string>();
    for (const link of this.memo.elsewhere) addTarget(elsewhere, link);
    return new SteeringLinkTargets([this.memo.inside, elsewhere], () => this.steeringFiles());
  }

  /** Kept while the tree's version holds: a file put in place of one is a change the tree sees, and a write keeps the inode. */
  private steeringFiles(): ReadonlyMap<string, string> {
    if (this.files?.version !== this.tree.version) {
      const byInode = new Map<string, string>();
      for (const file of steeringFilesOf(this.tree)) {
        const stat = fs.lstatSync(file, { throwIfNoEntry: false });
        if (stat?.isFile() && !byInode.has(key(stat))) byInode.set(key(stat), file);
      }
      this.files = { version: this.tree.version, byInode };
    }
    return this.files.byInode;
  }

  private sorted(links: readonly string[]): { inside: Map<string, string>; elsewhere: string[] } {
    const inside = new Map<string, string>();
    const elsewhere: string[] = [];
    for (const link of links) {
      if (leadsInside(link, this.tree.root)) addTarget(inside, link);
      else elsewhere.push(link);
    }
    return { inside, elsewhere };
  }
}

function steeringEntriesOf(tree: WorkTree, kind: "symlink" | "file", orHolder = false): string[] {
  const found: string[] = [];
  for (const [dir, listing] of tree.listings())
    for (const e of listing.entries) {
      if (e.kind !== kind) continue;
      const entry = path.join(dir, e.name);
      if (steeringFileOf(entry, tree.root, hasGitHead) || (orHolder && steeringHolderOf(entry))) found.push(entry);
    }
  return found;
}

const steeringLinksOf = (tree: WorkTree) => steeringEntriesOf(tree, "symlink", true);
const steeringFilesOf = (tree: WorkTree) => steeringEntriesOf(tree, "file");

const key = (s: fs.Stats) => `${s.dev}:${s.ino}`;

function leadsInside(link: string, root: string): boolean {
  try {
    return isInside(fs.realpathSync.native(link), root);
  } catch {
    return false;
  }
}

function addTarget(targets: Map<string, string>, link: string): void {
  const target = fs.statSync(link, { throwIfNoEntry: false });
  if (target) targets.set(key(target), link);
}

/** Where each steering link leads, by device and inode; and the catalogue's files, for a file with other hard links. */
export class SteeringLinkTargets {
  constructor(
    private readonly maps: readonly ReadonlyMap<string, string>[],
    private readonly steeringFiles: () => ReadonlyMap<string, string> = () => new Map(),
  ) {}

  /** A file of the catalogue that `opened` (at `real`) is under another name (a hard link to `.git/config`); a file with one link is none. */
  hardLinkTo(real: string, opened: fs.Stats): string | undefined {
    if (!opened.isFile() || opened.nlink < 2) return undefined;
    const file = this.steeringFiles().get(key(opened));
    return file === real ? undefined : file;
  }

  private linkTo(stat: fs.Stats): string | undefined {
    const k = key(stat);
    for (const m of this.maps) {
      const link = m.get(k);
      if (link) return link;
    }
    return undefined;
  }

  /**
   * The path a write reaches through a steering link: `real` (a file opened as `opened`, or about
   * to be made) is where a link leads, or lies in a folder where one leads; null when neither.
   */
  through(real: string, opened: fs.Stats | null): string | null {
    if (this.maps.every((m) => m.size === 0)) return null;
    const own = opened && this.linkTo(opened);
    if (own) return own;
    for (let dir = path.dirname(real), below = path.basename(real); ; below = path.join(path.basename(dir), below), dir = path.dirname(dir)) {
      const stat = fs.statSync(dir, { throwIfNoEntry: false });
      const link = stat && this.linkTo(stat);
      if (link) return path.join(link, below);
      if (dir === "/") return null;
    }
  }
}
