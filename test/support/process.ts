import fs from "node:fs";

/** True when the process no longer runs: it does not exist, or it is a zombie waiting to be reaped. */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? false;
  } catch {
    return true;
  }
}

/** Host pids of the processes whose command line contains `marker` (a command and its sandbox too). */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ");
      if (cmdline.includes(marker) && !processGone(Number(name))) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
