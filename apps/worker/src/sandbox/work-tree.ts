import fs from "node:fs";
import path from "node:path";

export type EntryKind = "file" | "dir" | "symlink" | "other";

export interface TreeEntry {
  name: string;
  kind: EntryKind;
}

/** One folder's listing and the stamp of the refresh that last read it. */
export interface FolderListing {
  mtimeNs: bigint;
  /** False when the folder changed so shortly before it was read that a later change could keep the same time. */
  settled: boolean;
  entries: TreeEntry[];
  /** Changes whenever this folder is read again; results computed from the listing are keyed by it. */
  stamp: number;
}

// File times advance in coarse ticks (a few milliseconds): a folder changed within this long of
// being read is read again next time rather than trusted.
const SETTLE_NS = 200_000_000n;

const sameEntries = (a: TreeEntry[], b: TreeEntry[]) => a.length === b.length && a.every((e, i) => e.name === b[i]!.name && e.kind === b[i]!.kind);

export class TreeTooLarge extends Error {
  readonly code = "TREE_TOO_LARGE";
}

const kindOf = (d: fs.Dirent): EntryKind => (d.isSymbolicLink() ? "symlink" : d.isDirectory() ? "dir" : d.isFile() ? "file" : "other");

/**
 * Every entry under the work directory, kept current at the cost of one stat per folder: a folder
 * whose modification time has not moved has the same entries (creating, removing or renaming an
 * entry, a symlink included, moves it), so only changed folders are listed again. Symlinked
 * folders are not followed; their targets are judged by their real path instead.
 */
export class WorkTree {
  private readonly folders = new Map<string, FolderListing>();
  private stamps = 0;
  /** Changes whenever any folder was read again or dropped. */
  version = 0;

  constructor(
    readonly root: string,
    private readonly maxEntries = 250_000,
  ) {}

  /** Brings every listing up to date; throws TreeTooLarge past the entry bound (a sandbox cannot be built then). */
  refresh(): void {
    const seen = new Set<string>();
    const stack = [this.root];
    let count = 0;
    let changed = false;
    while (stack.length > 0) {
      const dir = stack.pop()!;
      const listing = this.listing(dir);
      if (!listing) continue;
      if (listing.stamp > this.lastStamp) changed = true;
      seen.add(dir);
      count += listing.entries.length;
      if (count > this.maxEntries)
        throw new TreeTooLarge(`the work directory holds more than ${this.maxEntries} entries; the sandbox cannot mask its denied files`);
      for (const e of listing.entries) if (e.kind === "dir") stack.push(path.join(dir, e.name));
    }
    for (const dir of this.folders.keys()) {
      if (!seen.has(dir)) {
        this.folders.delete(dir);
        changed = true;
      }
    }
    this.lastStamp = this.stamps;
    if (changed) this.version++;
  }

  private lastStamp = 0;

  /** Folders and their listings, as of the last refresh. */
  listings(): IterableIterator<[string, FolderListing]> {
    return this.folders.entries();
  }

  private listing(dir: string): FolderListing | null {
    const stat = fs.statSync(dir, { bigint: true, throwIfNoEntry: false });
    if (!stat?.isDirectory()) {
      this.folders.delete(dir);
      return null;
    }
    const known = this.folders.get(dir);
    if (known && known.settled && known.mtimeNs === stat.mtimeNs) return known;
    let entries: TreeEntry[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true }).map((d) => ({ name: d.name, kind: kindOf(d) }));
    } catch {
      entries = [];
    }
    const settled = BigInt(Date.now()) * 1_000_000n - stat.mtimeNs > SETTLE_NS;
    if (known && !known.settled && known.mtimeNs === stat.mtimeNs && sameEntries(known.entries, entries)) {
      known.settled = settled;
      return known;
    }
    const fresh = { mtimeNs: stat.mtimeNs, settled, entries, stamp: ++this.stamps };
    this.folders.set(dir, fresh);
    return fresh;
  }
}
