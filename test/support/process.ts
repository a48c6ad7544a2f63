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

function pidNamespace(pid: number | "self"): string | null {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return null;
  }
}

/**
 * Every live process of one call: those whose command line carries `marker` (the command and the
 * bubblewrap that runs it) and everything in their PID namespaces (bubblewrap's init, the network
 * relay, what the command started), with their command lines.
 */
export function callProcesses(marker: string): string[] {
  const own = pidNamespace("self");
  const marked = processesWith(marker);
  const namespaces = new Set(marked.map(pidNamespace).filter((ns) => ns !== null && ns !== own));
  const found: string[] = [];
  for (const name of fs.readdirSync("/proc")) {
    const pid = Number(name);
    if (!/^\d+$/.test(name) || pid === process.pid || processGone(pid)) continue;
    if (!marked.includes(pid) && !namespaces.has(pidNamespace(pid) ?? "")) continue;
    try {
      found.push(`${pid}: ${fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").slice(0, 160)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Looks with no pause between looks until a process carrying `marker` runs: what follows lands within milliseconds of its start. */
export function spinUntilStarted(marker: string, timeoutMs = 20_000): void {
  const deadline = Date.now() + timeoutMs;
  while (processesWith(marker).length === 0) if (Date.now() > deadline) throw new Error(`no process carrying ${marker} started`);
}
