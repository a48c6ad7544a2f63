// Start-up of a built checkout: `./gatehouse --help`, the CLI's own imports, and `./gatehouse --demo`
// until its first screen (the banner) and the tour's first call. Run with `pnpm bench:start`.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Tmux } from "../test/support/tmux.js";

const root = path.resolve(import.meta.dirname, "..");
const runs = Number(process.env.RUNS ?? 10);
const demoRuns = Number(process.env.DEMO_RUNS ?? 5);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const summary = (values: number[]) => `median ${median(values).toFixed(0)} ms, min ${Math.min(...values).toFixed(0)} ms (${values.length} runs)`;

function timed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

/** Milliseconds a fresh node takes to import each module, in one process, one after another. */
function importTimes(modules: string[]): Record<string, number> {
  const script = [
    "const times = {};",
    `for (const m of ${JSON.stringify(modules)}) { const start = performance.now(); await import(m); times[m] = performance.now() - start; }`,
    "console.log(JSON.stringify(times));",
  ].join("\n");
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: path.join(root, "apps/cli"), encoding: "utf8" });
  return JSON.parse(out) as Record<string, number>;
}

async function demoScreen(): Promise<{ banner: number; firstCall: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-bench-start-"));
  const start = performance.now();
  const tmux = new Tmux(`${path.join(root, "gatehouse")} --demo --data-dir ${dataDir}`);
  try {
    await tmux.waitFor(/Gatehouse on /, "the banner", 60_000);
    const banner = performance.now() - start;
    await tmux.waitFor(/✓ done /, "the tour's first call", 60_000);
    const firstCall = performance.now() - start;
    tmux.keys("C-c");
    await tmux.waitFor(/EXITED/, "the demo to quit", 10_000).catch(() => undefined);
    return { banner, firstCall };
  } finally {
    tmux.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

execFileSync(path.join(root, "scripts/bootstrap"), { stdio: "inherit" });
const nodeAlone = Array.from({ length: runs }, () => timed(() => execFileSync(process.execPath, ["-e", "0"])));
const help = Array.from({ length: runs }, () => timed(() => execFileSync(path.join(root, "gatehouse"), ["--help"])));
const helpNode = Array.from({ length: runs }, () => timed(() => execFileSync(process.execPath, [path.join(root, "apps/cli/bin/gatehouse.js"), "--help"])));
const bootstrap = Array.from({ length: runs }, () => timed(() => execFileSync(path.join(root, "scripts/bootstrap"))));
console.log(`node -e 0 (the floor): ${summary(nodeAlone)}`);
console.log(`./gatehouse --help: ${summary(help)}`);
console.log(`  node apps/cli/bin/gatehouse.js --help: ${summary(helpNode)}`);
console.log(`  scripts/bootstrap with nothing to build: ${summary(bootstrap)}`);

const imports = importTimes(["./dist/main.js", "@gatehouse/server", "@gatehouse/worker", "@gatehouse/terminal"]);
console.log(
  `imports, one after another: ${Object.entries(imports)
    .map(([m, ms]) => `${m} ${ms.toFixed(0)} ms`)
    .join(", ")}`,
);

const demo: { banner: number; firstCall: number }[] = [];
for (let i = 0; i < demoRuns; i++) demo.push(await demoScreen());
console.log(`./gatehouse --demo, first screen (banner): ${summary(demo.map((d) => d.banner))}`);
console.log(`./gatehouse --demo, the tour's first call done: ${summary(demo.map((d) => d.firstCall))}`);
console.log(`load average while measuring: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`);
