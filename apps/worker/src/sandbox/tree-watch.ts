import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Change notices for a tree of folders, one watch per folder, and the barrier that says when they
 * can be trusted.
 *
 * Every watch of this process reports through one inotify queue (libuv keeps one per event loop),
 * in the order the kernel saw the changes. When that queue is full the kernel drops what comes next
 * and leaves an overflow notice, which libuv discards without a word. So notices are trusted only
 * while the count of those delivered shows that the queue cannot have filled: at most a quarter
 * of its bound since the barrier two calls back (everything pending when a notice could have been
 * dropped was made after that barrier was delivered, and is delivered itself before the next
 * barrier). Closing a watch drops its pending notices uncounted, so a close also withdraws trust
 * until two barriers have passed after it.
 */

export type WatchFn = (dir: string, listener: (event: string, name: string | null) => void) => fs.FSWatcher;

const nodeWatch: WatchFn = (dir, listener) => fs.watch(dir, { persistent: false }, listener);

// File systems whose every change passes through this kernel, so that a watch sees it (not NFS,
// SMB or FUSE, where another machine's changes send nothing).
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
]);

const BARRIER_TIMEOUT_MS = 2_000;

function readQueueLimit(): number {
  try {
    return Number(fs.readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}

/** The kernel's bound on queued notices, read before the first watch is made. */
const QUEUE_LIMIT = readQueueLimit();

/** Notices delivered to any watch made here, the barrier's own among them. */
let delivered = 0;
/** Orders closes and barriers. */
let clock = 0;
let lastClose = 0;

export interface BarrierMark {
  /** When the barrier was written, on `clock`. */
  written: number;
  /** Notices delivered by the time it came back. */
  delivered: number;
}

/**
 * A file in a private folder, watched like the tree: touching it and waiting for its notice means
 * every change made before the touch has been delivered. Calls that ask while one is on its way
 * share the next one.
 */
class Barrier {
  constructor(private readonly timeoutMs: number) {}

  private file: string | null = null;
  private arrived: (() => void) | null = null;
  private current: Promise<BarrierMark | null> | null = null;
  private queued: Promise<BarrierMark | null> | null = null;
  broken: string | null = null;

  pass(watch: WatchFn): Promise<BarrierMark | null> {
    if (this.broken) return Promise.resolve(null);
    if (!this.current) {
      this.current = this.issue(watch).finally(() => (this.current = null));
      return this.current;
    }
    this.queued ??= this.current.then(() => {
      this.queued = null;
      return this.pass(watch);
    });
    return this.queued;
  }

  private issue(watch: WatchFn): Promise<BarrierMark | null> {
    return new Promise((resolve) => {
      const file = this.prepare(watch);
      if (!file) return resolve(null);
      const written = ++clock;
      const arrived = () => {
        clearTimeout(timer);
        resolve({ written, delivered });
      };
      // Timers run before notices are read in a turn of the event loop: after a turn blocked past
      // the timeout, the notice may be waiting. It is given that turn's reading before giving up.
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (this.arrived !== arrived) return;
            // A notice that never came was dropped from a full queue; a late one must not count for the next.
            this.arrived = null;
            this.broken = `its barrier notice did not arrive within ${this.timeoutMs} ms`;
            resolve(null);
          }),
        this.timeoutMs,
      );
      this.arrived = arrived;
      try {
        const now = new Date();
        fs.utimesSync(file, now, now);
      } catch (err) {
        clearTimeout(timer);
        this.arrived = null;
        this.broken = `its barrier file cannot be touched: ${(err as Error).message}`;
        resolve(null);
      }
    });
  }

  private prepare(watch: WatchFn): string | null {
    if (this.file) return this.file;
    try {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-barrier-"));
      const file = path.join(dir, "b");
      fs.writeFileSync(file, "");
      const watcher = watch(dir, (_event, name) => {
        delivered++;
        if (name === "b" && this.arrived) {
          const arrived = this.arrived;
          this.arrived = null;
          arrived();
        }
      });
      watcher.on("error", (err) => (this.broken = `its barrier watch failed: ${err.message}`));
      process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
      return (this.file = file);
    } catch (err) {
      this.broken = `its barrier cannot be set up: ${(err as Error).message}`;
      return null;
    }
  }
}

const barriers = new Map<WatchFn, Barrier>();

/** Waits until every change made before now has been delivered; null when that cannot be known. */
export function passBarrier(watch: WatchFn = nodeWatch, timeoutMs = BARRIER_TIMEOUT_MS): Promise<BarrierMark | null> {
  let barrier = barriers.get(watch);
  if (!barrier) barriers.set(watch, (barrier = new Barrier(timeoutMs)));
  return barrier.pass(watch);
}

export function barrierProblem(watch: WatchFn = nodeWatch): string | null {
  return barriers.get(watch)?.broken ?? null;
}

interface Handle {
  watcher: fs.FSWatcher;
  ino: number;
}

/** The watches of one tree and the folders they have reported since they were last read. */
export class TreeWatch {
  private readonly handles = new Map<string, Handle>();
  /** Folders to read again: something in them, or they themselves, changed. */
  readonly dirty = new Set<string>();
  /** Folders whose own notice (moved or removed) may mean the watch is on another folder now. */
  readonly suspect = new Set<string>();
  /** Why notices are not used, once they are not. */
  broken: string | null = null;
  /** The barriers of the last two updates, oldest first. */
  private marks: BarrierMark[] = [];

  constructor(
    readonly watchFn: WatchFn = nodeWatch,
    private readonly queueLimit: number = QUEUE_LIMIT,
  ) {
    if (queueLimit <= 0) this.broken = "the kernel's bound on queued change notices cannot be read";
  }

  /** Devices whose file system was found to report every change. */
  private readonly localDevices = new Set<number>();

  /** Whether watching can work for folders on the file system of `dir` (device `dev`); breaks when not. */
  supports(dir: string, dev: number): boolean {
    if (this.localDevices.has(dev)) return true;
    try {
      const type = fs.statfsSync(dir).type;
      if (LOCAL_FILE_SYSTEMS.has(type)) {
        this.localDevices.add(dev);
        return true;
      }
      this.break(`${dir} is on a file system (type 0x${type.toString(16)}) whose changes may not all be reported`);
    } catch (err) {
      this.break(`the file system of ${dir} cannot be told: ${(err as Error).message}`);
    }
    return false;
  }

  /** Trust is withdrawn until two more barriers have passed (after an update that did not finish). */
  distrust(): void {
    this.marks = [];
  }

  /**
   * Records this update's barrier; true when the notices since the last update can be trusted to be
   * complete (see the head of this module).
   */
  settle(mark: BarrierMark): boolean {
    const before = this.marks.length === 2 ? this.marks[0]! : null;
    this.marks = [...this.marks.slice(-1), mark];
    if (!before) return false;
    return lastClose < before.written && mark.delivered - before.delivered < this.queueLimit / 4;
  }

  /** Watches `dir`, whose inode is `ino` on device `dev`; false (and broken) when it cannot be watched. */
  watch(dir: string, ino: number, dev: number): boolean {
    if (this.broken || !this.supports(dir, dev)) return false;
    const known = this.handles.get(dir);
    if (known && known.ino === ino && !this.suspect.has(dir)) return true;
    if (known) this.unwatch(dir);
    this.suspect.delete(dir);
    try {
      const base = path.basename(dir);
      const watcher = this.watchFn(dir, (event, name) => {
        delivered++;
        this.dirty.add(dir);
        // A notice about the folder itself carries its own name; a child of that name looks the same.
        if (event === "rename" && name === base) this.suspect.add(dir);
      });
      watcher.on("error", (err) => this.break(`a watch failed: ${err.message}`));
      this.handles.set(dir, { watcher, ino });
      return true;
    } catch (err) {
      this.break(`a folder cannot be watched (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      return false;
    }
  }

  watched(dir: string): Handle | undefined {
    return this.handles.get(dir);
  }

  paths(): string[] {
    return [...this.handles.keys()];
  }

  unwatch(dir: string): void {
    const handle = this.handles.get(dir);
    if (!handle) return;
    this.handles.delete(dir);
    handle.watcher.close();
    lastClose = ++clock;
  }

  break(reason: string): void {
    this.broken ??= reason;
    this.closeAll();
  }

  closeAll(): void {
    for (const dir of [...this.handles.keys()]) this.unwatch(dir);
    this.dirty.clear();
    this.suspect.clear();
    this.marks = [];
  }
}
