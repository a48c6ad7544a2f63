// What the sandbox's kernel floors cost a command: listing the host's Unix sockets (with the
// host's own, and with 20 and 200 more listening), and bubblewrap running `true` with and without the
// floors (kernel settings read-only, its own UTS namespace, the seccomp filter, the sockets
// masked). Minima are the figures to compare when the machine is shared.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { bwrapCommandLine, FILTER_FD, feedBubblewrap, optionsData, OPTIONS_FD } from "../apps/worker/src/sandbox/bwrap-args.js";
import { procOptions } from "../apps/worker/src/sandbox/proc-options.js";
import { hostSockets } from "../apps/worker/src/sandbox/host-sockets.js";
import type { Writable } from "node:stream";

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const at = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const figures = (xs: number[]) => `min ${at(xs, 0).toFixed(2)} ms, p50 ${at(xs, 0.5).toFixed(2)} ms`;

const dir = fs.realpathSync(fs.mkdtempSync("/var/tmp/gh-bench-floors-"));
const empty = path.join(dir, "empty");
fs.writeFileSync(empty, "", { mode: 0o000 });

function timeListing(): number[] {
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    hostSockets([]);
    out.push(performance.now() - t0);
  }
  return out;
}

/** bubblewrap running `true` with `options`, its filter fed when the options ask for one. */
function run(options: string[]): Promise<number> {
  const t0 = performance.now();
  const child = spawn("bwrap", bwrapCommandLine(["true"]), { stdio: ["ignore", "ignore", "pipe", "pipe", "ignore", "pipe"] });
  if (options.includes("--seccomp")) feedBubblewrap(child.stdio, options);
  else {
    (child.stdio[OPTIONS_FD] as Writable).end(optionsData(options));
    (child.stdio[FILTER_FD as number] as unknown as Writable).end();
  }
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d));
  return new Promise((resolve, reject) => child.on("close", (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(err)))));
}

const BASE = [
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--tmpfs",
  "/tmp",
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-net",
  "--cap-drop",
  "ALL",
];
const floors = () => [
  ...BASE.slice(0, 7),
  ...procOptions().slice(2),
  ...BASE.slice(7),
  "--unshare-uts",
  ...hostSockets([]).flatMap((s) => ["--ro-bind", empty, s]),
  "--seccomp",
  String(FILTER_FD),
];

async function compare(label: string): Promise<void> {
  const sockets = hostSockets([]).length;
  const listing = timeListing();
  const plain: number[] = [];
  const floored: number[] = [];
  await run(BASE);
  await run(floors());
  for (let i = 0; i < RUNS; i++) {
    plain.push(await run(BASE));
    floored.push(await run(floors()));
  }
  console.log(`${label} (${sockets} sockets to mask):`);
  console.log(`  listing the host's sockets: ${figures(listing)}`);
  console.log(`  bubblewrap \`true\` without the floors: ${figures(plain)}`);
  console.log(`  with them (listing included): ${figures(floored)}; min +${(at(floored, 0) - at(plain, 0)).toFixed(2)} ms`);
}

console.log(`node ${process.version}, ${os.cpus().length} cores; load average ${os.loadavg()[0]!.toFixed(1)}; ${RUNS} runs a figure`);
await compare("the host as it is");
const servers: net.Server[] = [];
for (const more of [20, 200]) {
  while (servers.length < more) {
    const s = net.createServer();
    await new Promise<void>((resolve) => s.listen(path.join(dir, `s${servers.length}.sock`), resolve));
    servers.push(s);
  }
  await compare(`with ${more} more listening sockets`);
}
for (const s of servers) s.close();
fs.rmSync(dir, { recursive: true, force: true });
