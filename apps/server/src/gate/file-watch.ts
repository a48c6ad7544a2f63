import fs from "node:fs";
import path from "node:path";

/**
 * However quiet its watch, a file is looked at again after this long: a change the kernel does not
 * report (a folder above it moved, a file system shared over the network) is seen within it.
 */
const LOOK_AGAIN_MS = 1000;

/**
 * Whether a file may have changed since it was last looked at, without looking at it: a watch on
 * the file and on its folder, armed before each look, ends at the first thing that happens to
 * either. A file reached through a symbolic link is never taken as unchanged (its link or a folder
 * on the way may change with no event here), nor is one the system cannot watch.
 */
export class FileWatch {
  private watchers: fs.FSWatcher[] = [];
  private lookedAt = -Infinity;

  constructor(private readonly file: string) {}

  /** True while nothing has happened to the file or its folder since the last look, and that look is recent. */
  unchanged(): boolean {
    return this.watchers.length > 0 && performance.now() - this.lookedAt < LOOK_AGAIN_MS;
  }

  /** Called just before the file is looked at: the watch is armed first, so a change in between is not missed. */
  looking(): void {
    if (this.watchers.length === 0) this.arm();
    this.lookedAt = performance.now();
  }

  close(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }

  private arm(): void {
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
