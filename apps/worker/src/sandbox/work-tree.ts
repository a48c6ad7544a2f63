import fs from "node:fs";

export type EntryKind = "file" | "dir" | "symlink" | "other";

export interface TreeEntry {
  name: string;
  kind: EntryKind;
}

/** One folder's listing and the stamp of the refresh that last read it. */
export interface FolderListing {
  /**
   * What the folder's state is known by: its inode and its change time. Adding, removing or
   * renaming an entry moves the change time, and so does setting the folder's times back (which
   * an archive or `touch -d` does with the modification time); a folder put in place of another
   * has another inode (or device).
   */
  dev: number;
  ino: number;
  ctimeMs: number;
  /** False when the folder changed so shortly before it was read that a later change could keep the same time. */
  settled: boolean;
  entries: TreeEntry[];
  /** The absolute paths of the entries that are folders. */
  subfolders: string[];
  /** Changes whenever this folder is read again; results computed from the listing are keyed by it. */
  stamp: number;
  /** The refresh that last reached this folder. */
  pass: number;
}

// File times advance in coarse ticks (a few milliseconds): a folder changed within this long of
// being read is read again next time rather than trusted.
const SETTLE_MS = 200;

const sameEntries = (a: TreeEntry[], b: TreeEntry[]) => a.length === b.length && a.every((e, i) => e.name === b[i]!.name && e.kind === b[i]!.kind);

export class TreeTooLarge extends Error {
  readonly code = "TREE_TOO_LARGE";
}

// One counter for every tree: trees may overlap (folders named by two absolute patterns), and a
// folder's judgement is remembered by its path and stamp.
let stamps = 0;

const kindOf = (d: fs.Dirent): EntryKind => (d.isSymbolicLink() ? "symlink" : d.isDirectory() ? "dir" : d.isFile() ? "file" : "other");

/**
 * Every entry under the work directory, kept current at the cost of one stat per folder: a folder
 * whose inode and change time have not moved has the same entries, so only changed folders are
 * listed again. Symlinked folders are not followed; their targets are judged by their real path
 * instead.
 */
export class WorkTree {
  private readonly folders = new Map<string, FolderListing>();
  private lastStamp = 0;
  private passes = 0;
  /** Changes whenever any folder was read again or dropped. */
  version = 0;

  constructor(
    readonly root: string,
    private readonly maxEntries = 250_000,
  ) {}

  /** Brings every listing up to date; throws TreeTooLarge past the entry bound (a sandbox cannot be built then). */
  refresh(): void {
    const pass = ++this.passes;
    const stack = [this.root];
    let count = 0;
    let reached = 0;
    let changed = false;
    while (stack.length > 0) {
      const dir = stack.pop()!;
      const listing = this.listing(dir);
      if (!listing) continue;
      if (listing.stamp > this.lastStamp) changed = true;
      listing.pass = pass;
      reached++;
      count += listing.entries.length;
      if (count > this.maxEntries)
        throw new TreeTooLarge(`the work directory holds more than ${this.maxEntries} entries; the sandbox cannot mask its denied files`);
      for (const sub of listing.subfolders) stack.push(sub);
    }
    // Every folder reached is in the map; when the counts agree, none was left behind.
    if (reached !== this.folders.size) {
      for (const [dir, listing] of this.folders) {
        if (listing.pass !== pass) {
          this.folders.delete(dir);
          changed = true;
        }
      }
    }
    this.lastStamp = stamps;
    if (changed) this.version++;
  }

  /** Folders and their listings, as of the last refresh. */
  listings(): IterableIterator<[string, FolderListing]> {
    return this.folders.entries();
  }

  private listing(dir: string): FolderListing | null {
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) {
      this.folders.delete(dir);
      return null;
    }
    const known = this.folders.get(dir);
    const same = known !== undefined && known.ino === stat.ino && known.dev === stat.dev && known.ctimeMs === stat.ctimeMs;
    if (same && known.settled) return known;
    let entries: TreeEntry[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true }).map((d) => ({ name: d.name, kind: kindOf(d) }));
    } catch {
      entries = [];
    }
    const settled = Date.now() - Math.max(stat.ctimeMs, stat.mtimeMs) > SETTLE_MS;
    if (same && sameEntries(known.entries, entries)) {
      known.settled = settled;
      return known;
    }
    const prefix = dir === "/" ? "/" : `${dir}/`;
    const subfolders = entries.filter((e) => e.kind === "dir").map((e) => prefix + e.name);
    const fresh = { dev: stat.dev, ino: stat.ino, ctimeMs: stat.ctimeMs, settled, entries, subfolders, stamp: ++stamps, pass: 0 };
    this.folders.set(dir, fresh);
    return fresh;
  }
}
