import fs from "node:fs";
import path from "node:path";

/**
 * However quiet its watch, a file is looked at again after this long, and the watch armed afresh:
 * a change the kernel does not report (a folder above it replaced, a file system shared over the
 * network) is seen within it.
 */
const LOOK_AGAIN_MS = 1000;

/** One look at the file: under which arming of the watch, and when. */
export interface Look {
  readonly armed: number;
  readonly at: number;
}

/**
 * Whether a file may have changed since a look at it, without looking again: a watch on the file
 * and on its folder, armed before a look, ends at the first thing that happens to either. A file
 * reached through a symbolic link is never taken as unchanged (its link or a folder on the way may
 * change with no event here), nor is one the system cannot watch.
 */
export class FileWatch {
  private watchers: fs.FSWatcher[] = [];
  /** Counts the armings: a look made under an earlier one says nothing of the file now. */
  private armings = 0;
  private armedAt = -Infinity;

  constructor(private readonly file: string) {}

  /** Called just before the file is looked at: the watch is armed first, so a change in between is not missed. */
  looking(): Look {
    const at = performance.now();
    if (this.watchers.length === 0 || at - this.armedAt >= LOOK_AGAIN_MS) this.arm(at);
    return { armed: this.armings, at };
  }

  /** True while nothing has happened to the file or its folder since `look`, and that look is recent. */
  unchangedSince(look: Look): boolean {
    return this.watchers.length > 0 && look.armed === this.armings && performance.now() - look.at < LOOK_AGAIN_MS;
  }

  close(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }

  private arm(at: number): void {
    this.close();
    this.armings++;
    this.armedAt = at;
    const changed = () => this.close();
    try {
      if (fs.realpathSync.native(this.file) !== this.file) return;
      for (const target of [this.file, path.dirname(this.file)])
        this.watchers.push(fs.watch(target, { persistent: false }).on("change", changed).on("error", changed));
    } catch {
      this.close();
    }
  }
}
