import fs from "node:fs";
import { barrierProblem, passBarrier, TreeWatch } from "./tree-watch.js";
import { TreeTooLargeError } from "../errors.js";

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
  /** The absolute paths of the entries that are folders, those too deep to walk left out. */
  subfolders: string[];
  /** Folders whose paths are too long to walk (see DEEPEST): the sandbox hides them whole. */
  tooDeep: string[];
  /** Changes whenever this folder is read again; results computed from the listing are keyed by it. */
  stamp: number;
  /** The refresh that last reached this folder. */
  pass: number;
}

// File times advance in coarse ticks (a few milliseconds): a folder changed within this long of
// being read is read again next time rather than trusted.
const SETTLE_MS = 200;

// A folder deeper than this, or whose path is longer, is not walked: it is hidden whole from
// commands, so what lies past it is never shown unjudged. The system refuses paths past 4,096
// bytes, which only relative steps reach, and every folder above a mask is bound onto itself,
// which bubblewrap does in time quadratic in their number.
const DEEPEST_LEVEL = 64;
const DEEPEST_BYTES = 3072;

/** How many folders down from `root` a path is. */
function levelOf(root: string, p: string): number {
  let level = 0;
  for (let i = root.length; i < p.length; i++) if (p.charCodeAt(i) === 47) level++;
  return level;
}

/** Whether the walk from `root` stops before `folder` (inside it), which the sandbox then hides whole. */
export function tooDeepToWalk(root: string, folder: string): boolean {
  return levelOf(root, folder) > DEEPEST_LEVEL || Buffer.byteLength(folder) > DEEPEST_BYTES;
}

/** Why a file at `real` inside `root` lies where the sandbox hides it as too deep, or null. */
export function tooDeepRefusal(root: string, real: string): string | null {
  const folder = real.slice(0, real.lastIndexOf("/"));
  if (folder.length <= root.length || !folder.startsWith(`${root}/`) || !tooDeepToWalk(root, folder)) return null;
  return `${real} lies past the deepest folder the sandbox walks (${DEEPEST_LEVEL} levels or ${DEEPEST_BYTES} bytes of path), so the sandbox hides it`;
}

const sameEntries = (a: TreeEntry[], b: TreeEntry[]) => a.length === b.length && a.every((e, i) => e.name === b[i]!.name && e.kind === b[i]!.kind);

// One counter for every tree: trees may overlap (folders named by two absolute patterns), and a
// folder's judgement is remembered by its path and stamp.
let stamps = 0;

const kindOf = (d: fs.Dirent): EntryKind => (d.isSymbolicLink() ? "symlink" : d.isDirectory() ? "dir" : d.isFile() ? "file" : "other");

/**
 * Every entry under the work directory, kept current by one of two means. The walk costs one stat
 * per folder: a folder whose inode and change time have not moved has the same entries, so only
 * changed folders are listed again. Watching (`watchChanges`) costs one watch per folder and
 * lists again only the folders that reported a change, once a barrier shows that every change made
 * before the call has been reported; when notices cannot be had or trusted, the walk is used.
 * Symlinked folders are not followed; their targets are judged by their real path instead.
 */
export class WorkTree {
  private readonly folders = new Map<string, FolderListing>();
  private lastStamp = 0;
  private passes = 0;
  private entries = 0;
  private watching: TreeWatch | null = null;
  private onFallback: (reason: string) => void = () => undefined;
  private updating: Promise<void> = Promise.resolve();
  private dropped = false;
  /** Changes whenever any folder was read again or dropped. */
  version = 0;
  /** Walks made so far (each a stat of every folder), for tests and diagnostics. */
  walks = 0;

  constructor(
    readonly root: string,
    private readonly maxEntries = 250_000,
  ) {}

  /**
   * From now on, `update` keeps the tree current from change notices; `onFallback` is told once why
   * it walks instead, when notices cannot be had or trusted.
   */
  watchChanges(onFallback: (reason: string) => void = () => undefined, watch = new TreeWatch()): void {
    this.onFallback = onFallback;
    this.watching = watch;
  }

  /** Closes the watches; later updates walk. */
  stopWatching(): void {
    this.watching?.closeAll();
    this.watching = null;
  }

  /** Why change notices are not used, or null while they are (or were never asked for). */
  get fallback(): string | null {
    return this.watching?.broken ?? null;
  }

  /** Brings every listing up to date, one update at a time; rejects with TreeTooLargeError past the entry bound. */
  update(): Promise<void> {
    const next = this.updating.then(() => this.updateNow());
    this.updating = next.catch(() => undefined);
    return next;
  }

  private async updateNow(): Promise<void> {
    const watch = this.watching;
    if (!watch) return this.refresh();
    if (!watch.broken) {
      const mark = await passBarrier(watch.watchFn);
      try {
        if (!mark) watch.break(`change notices cannot be trusted: ${barrierProblem(watch.watchFn) ?? "no barrier"}`);
        else if (watch.settle(mark)) this.readChanged(watch);
        else this.rewalk(watch);
      } catch (err) {
        // Folders reported but not yet read would be lost: the next updates walk.
        watch.distrust();
        throw err;
      }
      this.lastStamp = stamps;
      // A work directory removed (and perhaps made again) has no watch left on it: walk next time.
      if (!this.folders.has(this.root)) watch.distrust();
      if (!watch.broken) return;
    }
    this.onFallback(`the work directory is walked on every call: ${watch.broken}`);
    this.onFallback = () => undefined;
    this.refresh();
  }

  /** Reads again the folders that reported a change. */
  private readChanged(watch: TreeWatch): void {
    const dirty = [...watch.dirty];
    watch.dirty.clear();
    const stamp = stamps;
    for (const dir of dirty) if (this.folders.has(dir) && !watch.broken) this.reread(watch, dir);
    this.bound();
    if (stamps !== stamp || this.dropped) this.version++;
    this.dropped = false;
  }

  /**
   * The walk, then a watch for every folder that lacks one (and a fresh read under it). The first
   * time, a walk that watches each folder before reading it.
   */
  private rewalk(watch: TreeWatch): void {
    watch.dirty.clear();
    if (watch.paths().length === 0) {
      this.folders.clear();
      this.entries = 0;
      this.version++;
      this.reread(watch, this.root);
      return;
    }
    this.refresh();
    for (const dir of watch.paths()) if (!this.folders.has(dir)) watch.unwatch(dir);
    const stamp = stamps;
    for (const [dir, listing] of [...this.folders]) {
      if (watch.broken) return;
      if (watch.watched(dir)?.ino !== listing.ino || watch.suspect.has(dir)) this.reread(watch, dir);
    }
    this.bound();
    if (stamps !== stamp || this.dropped) this.version++;
    this.dropped = false;
  }

  /**
   * Reads `dir` under a watch made before the read, so that no change can fall between them; reads
   * its new subfolders the same way and forgets those gone.
   */
  private reread(watch: TreeWatch, dir: string): void {
    for (let attempt = 0; attempt < 3; attempt++) {
      const stat = fs.statSync(dir, { throwIfNoEntry: false });
      if (!stat?.isDirectory()) return this.forget(watch, dir);
      const known = this.folders.get(dir);
      // Another folder at this path (or perhaps so: one removed and made again may get the same
      // inode number): what was known under it describes the folder that left.
      if (known && (watch.suspect.has(dir) || known.ino !== stat.ino || known.dev !== stat.dev)) this.forgetBelow(watch, dir);
      if (!watch.watch(dir, stat.ino, stat.dev)) return;
      const again = fs.statSync(dir, { throwIfNoEntry: false });
      if (again?.ino !== stat.ino || again.dev !== stat.dev) {
        // Replaced between the stat and the watch: the watch may be on the folder that left.
        watch.suspect.add(dir);
        continue;
      }
      const before = this.folders.get(dir);
      const listing = this.read(dir, again, before);
      this.bound();
      const kept = new Set(listing.subfolders);
      for (const sub of before?.subfolders ?? []) if (!kept.has(sub)) this.forget(watch, sub);
      const had = new Set(before?.subfolders ?? []);
      for (const sub of listing.subfolders) if (!had.has(sub) || !this.folders.has(sub)) this.reread(watch, sub);
      return;
    }
    watch.break(`the folder ${dir} kept being replaced while it was read`);
  }

  /** Forgets what is known of a folder and everything under it, keeping its watch. */
  private forgetBelow(watch: TreeWatch, dir: string): void {
    const listing = this.folders.get(dir);
    if (!listing) return;
    this.folders.delete(dir);
    this.entries -= listing.entries.length;
    this.dropped = true;
    for (const sub of listing.subfolders) this.forget(watch, sub);
  }

  /** Forgets a folder and everything under it. */
  private forget(watch: TreeWatch, dir: string): void {
    watch.unwatch(dir);
    this.forgetBelow(watch, dir);
  }

  private bound(): void {
    if (this.entries > this.maxEntries)
      throw new TreeTooLargeError(`the work directory holds more than ${this.maxEntries} entries; the sandbox cannot mask its denied files`);
  }

  /** Brings every listing up to date by the walk; throws TreeTooLargeError past the entry bound (a sandbox cannot be built then). */
  refresh(): void {
    this.walks++;
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
      this.entries = count;
      if (count > this.maxEntries)
        throw new TreeTooLargeError(`the work directory holds more than ${this.maxEntries} entries; the sandbox cannot mask its denied files`);
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
    this.entries = count;
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
    return this.read(dir, stat, known);
  }

  /** Lists `dir` again; the known listing is kept (with its stamp) when nothing about the folder moved. */
  private read(dir: string, stat: fs.Stats, known: FolderListing | undefined): FolderListing {
    let entries: TreeEntry[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true }).map((d) => ({ name: d.name, kind: kindOf(d) }));
    } catch {
      entries = [];
    }
    const settled = Date.now() - Math.max(stat.ctimeMs, stat.mtimeMs) > SETTLE_MS;
    const same = known !== undefined && known.ino === stat.ino && known.dev === stat.dev && known.ctimeMs === stat.ctimeMs;
    if (same && sameEntries(known.entries, entries)) {
      known.settled = settled;
      return known;
    }
    const prefix = dir === "/" ? "/" : `${dir}/`;
    const folders = entries.filter((e) => e.kind === "dir").map((e) => prefix + e.name);
    const deep = (f: string) => tooDeepToWalk(this.root, f);
    const subfolders = folders.filter((f) => !deep(f));
    const tooDeep = folders.filter(deep);
    const fresh = { dev: stat.dev, ino: stat.ino, ctimeMs: stat.ctimeMs, settled, entries, subfolders, tooDeep, stamp: ++stamps, pass: 0 };
    this.entries += entries.length - (known?.entries.length ?? 0);
    this.folders.set(dir, fresh);
    return fresh;
  }
}
