import { spawn, type ChildProcess } from "node:child_process";

// Flips `link` between two targets as fast as it can; each flip is a rename, so the link always exists.
const FLIP = `
const fs = require("node:fs");
const [link, a, b] = process.argv.slice(1);
const tmp = link + ".flip";
for (;;) for (const target of [a, b]) {
  try { fs.unlinkSync(tmp); } catch {}
  fs.symlinkSync(target, tmp);
  fs.renameSync(tmp, link);
}`;

/** A separate process that keeps swapping the symlink `link` between targets `a` and `b` until stopped. */
export function flipLink(link: string, a: string, b: string): { stop(): Promise<void>; process: ChildProcess } {
  const child = spawn(process.execPath, ["-e", FLIP, link, a, b], { stdio: "ignore" });
  return {
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
