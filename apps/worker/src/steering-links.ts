import fs from "node:fs";
import path from "node:path";
import { steeringFileOf } from "@gatehouse/policy";
import { hasGitHead } from "@gatehouse/policy/node";
import { ToolRefusedError, TreeTooLargeError } from "./errors.js";
import type { WorkTree } from "./sandbox/work-tree.js";

/**
 * The symlinks of the work tree that stand where a file of the catalogue is named (`.git/config
 * -> ../notes.txt`, `.husky -> scripts`). A write to where one leads changes what the named file
 * holds: the worker's check of a write finds such a link by the device and inode of what it opened.
 */
export class SteeringLinks {
  private memo: { version: number; links: string[] } | null = null;

  constructor(private readonly tree: WorkTree) {}

  /** The links as the tree lists them now; the tree is brought up to date first. */
  async current(): Promise<SteeringLinkTargets> {
    try {
      await this.tree.update();
    } catch (err) {
      if (err instanceof TreeTooLargeError) throw new ToolRefusedError(`the work tree's links to files that steer programs cannot be known: ${err.message}`);
      throw err;
    }
    if (this.memo?.version !== this.tree.version) this.memo = { version: this.tree.version, links: steeringLinksOf(this.tree) };
    return new SteeringLinkTargets(this.memo.links);
  }
}

function steeringLinksOf(tree: WorkTree): string[] {
  const links: string[] = [];
  for (const [dir, listing] of tree.listings())
    for (const e of listing.entries) {
      if (e.kind !== "symlink") continue;
      const link = path.join(dir, e.name);
      if (steeringFileOf(link, tree.root, hasGitHead)) links.push(link);
    }
  return links;
}

const key = (s: fs.Stats) => `${s.dev}:${s.ino}`;

/** Where each steering link leads at the moment of the write, by device and inode. */
export class SteeringLinkTargets {
  private readonly byTarget = new Map<string, string>();

  constructor(links: readonly string[]) {
    for (const link of links) {
      const target = fs.statSync(link, { throwIfNoEntry: false });
      if (target) this.byTarget.set(key(target), link);
    }
  }

  /**
   * The path a write reaches through a steering link: `real` (a file opened as `opened`, or about
   * to be made) is where a link leads, or lies in a folder where one leads; null when neither.
   */
  through(real: string, opened: fs.Stats | null): string | null {
    if (this.byTarget.size === 0) return null;
    const own = opened && this.byTarget.get(key(opened));
    if (own) return own;
    for (let dir = path.dirname(real), below = path.basename(real); ; below = path.join(path.basename(dir), below), dir = path.dirname(dir)) {
      const stat = fs.statSync(dir, { throwIfNoEntry: false });
      const link = stat && this.byTarget.get(key(stat));
      if (link) return path.join(link, below);
      if (dir === "/") return null;
    }
  }
}
