// The OS sandbox's own cost, measured in this process without a server: deriving the profile of a
// 20,000-file repository, building bubblewrap's arguments, and one command started and waited for
// with and without the sandbox. Minima are the figures to compare when the machine is shared.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_RULES_TEXT, loadShellParser, parseRulesOrThrow } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { FileGuard, resolveSandbox, ShellRunner, ToolRefusedError, WorkTree } from "../apps/worker/src/index.js";
import { bwrapCommandLine, bwrapOptions, feedBubblewrap, optionsData } from "../apps/worker/src/sandbox/bwrap-args.js";
import { confinedGit } from "../apps/worker/src/sandbox/confined-git.js";
import { GuardCache } from "../apps/worker/src/guard-cache.js";
import type { GitRunner } from "../apps/worker/src/own-git.js";
import { generateRepository } from "./shell-sandbox.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-bench-sandbox-")));
const small = path.join(root, "small");
const repo = path.join(root, "repo");
fs.mkdirSync(small);
fs.writeFileSync(path.join(small, "a.txt"), "a");
generateRepository(repo, 20_000);

await loadShellParser();
const rules = parseRulesOrThrow(DEFAULT_RULES_TEXT, { file: "p", home: "/" }).map(({ tool, pattern, action, origin }) => ({ tool, pattern, action, origin }));
const guardRules: Guard = { agent: null, static: rules, runtime: [], protectedPaths: [] };
const on = resolveSandbox({ mode: "required", network: true });
const off = resolveSandbox({ mode: "off", network: true });

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const at = (xs: number[], p: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const ms = (x: number) => `${x.toFixed(2)} ms`;
const figures = (xs: number[]) => `min ${ms(at(xs, 0))}, p50 ${ms(at(xs, 0.5))}`;
function timed(f: () => void, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    f();
    out.push(performance.now() - t0);
  }
  return out;
}
async function timedAsync(f: () => Promise<unknown>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    out.push(performance.now() - t0);
  }
  return out;
}
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

console.log(`node ${process.version}, ${os.cpus().length} cores; load average ${load()} (1, 5, 15 min); ${RUNS} runs a figure`);

// The profile of the 20,000-file repository, kept current by change notices (the default) and,
// for comparison, by a stat of every folder.
const runner = new ShellRunner(repo, on);
const walker = new ShellRunner(repo, on, { watch: false });
const guard = new FileGuard(guardRules, repo);
async function profileFigures(r: ShellRunner, tag: string) {
  let t0 = performance.now();
  const profile = await r.profile(guard);
  const first = performance.now() - t0;
  await r.profile(guard);
  const cpuBefore = process.cpuUsage();
  const unchanged = await timedAsync(() => r.profile(guard), RUNS);
  const cpuUnchanged = process.cpuUsage(cpuBefore);
  const afterNewFile: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    fs.writeFileSync(path.join(repo, "p0", "m0", "f0", `${tag}${i}.ts`), "x");
    t0 = performance.now();
    await r.profile(guard);
    afterNewFile.push(performance.now() - t0);
  }
  return { profile, first, unchanged, cpuUnchanged, afterNewFile };
}
const walked = await profileFigures(walker, "walked");
const watched = await profileFigures(runner, "watched");
const profile = watched.profile;
// New rules: one for another tool (a shell command approved for the session), one for read_file.
const withRule = (tool: string, pattern: string) => new FileGuard({ ...guardRules, runtime: [{ tool, pattern, action: "allow", origin: "approval" }] }, repo);
const [shellGuard, readGuard] = [withRule("shell_exec", "git status"), withRule("read_file", "docs/**")];
let t0 = performance.now();
await runner.profile(shellGuard);
const shellRule = performance.now() - t0;
t0 = performance.now();
await runner.profile(readGuard);
const readRule = performance.now() - t0;
const tree = new WorkTree(repo);
tree.refresh();
const folders = [...tree.listings()].map(([dir]) => dir);
const statAll = timed(() => {
  for (const dir of folders) fs.statSync(dir, { throwIfNoEntry: false });
}, RUNS);
const mounts = profile.pinned.length + profile.readOnly.length + profile.masked.length + profile.hidden.length;
console.log(`profile of the 20,000-file repository (${folders.length} folders; ${profile.masked.length} masked, ${mounts} mounts in all):`);
for (const [label, f] of [
  ["change notices", watched],
  ["stat of every folder", walked],
] as const) {
  console.log(
    `  kept current by ${label}: first call ${ms(f.first)}; nothing changed ${figures(f.unchanged)} (CPU ` +
      `${ms((f.cpuUnchanged.user + f.cpuUnchanged.system) / 1000 / RUNS)} a call); after a new file ${figures(f.afterNewFile)}`,
  );
}
console.log(`  first call after a rule for shell_exec is added ${ms(shellRule)}; after a rule for read_file ${ms(readRule)}`);
console.log(
  `  one stat of each folder, bare: ${figures(statAll)}; walks by the watched profile: ${runner.treeState.walks}${runner.treeState.fallback ? ` (fell back: ${runner.treeState.fallback})` : ""}`,
);
const empty = path.join(root, "empty");
fs.writeFileSync(empty, "", { mode: 0o000 });
const args = timed(() => optionsData(bwrapOptions(profile, profile.workDir, empty)), RUNS * 10);
console.log(
  `bubblewrap's options from that profile (${bwrapOptions(profile, profile.workDir, empty).length}): ` +
    `min ${(at(args, 0) * 1000).toFixed(1)} µs, p50 ${(at(args, 0.5) * 1000).toFixed(1)} µs`,
);

/** Starts a command and waits for it to end; rejects when it fails. */
async function waitFor(start: () => ReturnType<typeof spawn> | Promise<ReturnType<typeof spawn>>): Promise<number> {
  const t = performance.now();
  const child = await start();
  return new Promise((resolve, reject) => {
    child.stdout?.resume();
    child.stderr?.resume();
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(performance.now() - t) : reject(new Error(`exit status ${code}`))));
  });
}

// A home holding seven of the credential stores the default rules deny (outside /tmp, which the
// sandbox replaces, so that they are masked): one mount each, the others looked up and absent.
const home = fs.realpathSync(fs.mkdtempSync("/var/tmp/gh-bench-home-"));
for (const d of [".ssh", ".gnupg", ".config/gh", ".kube", ".docker", ".aws"]) {
  fs.mkdirSync(path.join(home, d), { recursive: true });
  fs.writeFileSync(path.join(home, d, "key"), "k");
}
fs.writeFileSync(path.join(home, ".npmrc"), "k");
const homeRules = parseRulesOrThrow(DEFAULT_RULES_TEXT, { file: "p", home }).map(({ tool, pattern, action, origin }) => ({ tool, pattern, action, origin }));
const homeGuard = new FileGuard({ ...guardRules, static: homeRules }, small);

// One command, start to end, the cases taking turns so that load falls on all alike.
const smallRunner = new ShellRunner(small, on);
const smallGuard = new FileGuard(guardRules, small);
t0 = performance.now();
const homeMasks = (await smallRunner.profile(homeGuard)).masked.length;
const homeFirst = performance.now() - t0;
const homeTimes = await timedAsync(() => smallRunner.profile(homeGuard), RUNS);
console.log(
  `profile of the small work directory with ${homeMasks} credential stores in the home masked: first call ${ms(homeFirst)}, then ${figures(homeTimes)}`,
);
const plainRunner = new ShellRunner(small, off);
const optionsOf = (profile: Awaited<ReturnType<ShellRunner["profile"]>>) => bwrapOptions(profile, profile.workDir, empty);
const smallArgs = optionsOf(await smallRunner.profile(smallGuard));
const bigArgs = optionsOf(await runner.profile(guard));
/** bubblewrap started as the runner starts it (its options and filter on descriptors), with no profile to build. */
const bwrapAlone = (options: string[]) => {
  const child = spawn("bwrap", bwrapCommandLine(["bash", "-c", "echo 1"]), { stdio: ["ignore", "pipe", "pipe", "pipe", "ignore", "pipe"] });
  feedBubblewrap(child.stdio, options);
  return child;
};
const cases: [string, () => ReturnType<typeof spawn> | Promise<ReturnType<typeof spawn>>][] = [
  ["`echo` without the sandbox", () => plainRunner.start("echo 1", smallGuard)],
  ["`echo` in the sandbox, small work directory", () => smallRunner.start("echo 1", smallGuard)],
  [`\`echo\` in the sandbox, small work directory, ${homeMasks} credential stores masked`, () => smallRunner.start("echo 1", homeGuard)],
  ["`echo` in the sandbox, 20,000-file repository", () => runner.start("echo 1", guard)],
  ["`echo` in the sandbox, 20,000-file repository, stat of every folder", () => walker.start("echo 1", guard)],
  ["bubblewrap alone, small work directory's arguments", () => bwrapAlone(smallArgs)],
  ["bubblewrap alone, 20,000-file repository's arguments", () => bwrapAlone(bigArgs)],
];
// CPU time, unlike wall time, does not count waiting for a core: the figure to compare while
// others build. This process's own (profile, arguments, spawning) and its waited-for children's
// (bubblewrap and the command), the latter from /proc in ticks of 10 ms, summed over all runs.
const TICK_MS = 10;
const childrenCpuMs = () => {
  const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
};
for (const [, start] of cases) await waitFor(start); // first runs load and compile what the others reuse
const times = cases.map(() => [] as number[]);
const ownCpu = cases.map(() => 0);
const childCpu = cases.map(() => 0);
for (let i = 0; i < RUNS; i++) {
  for (const [k, [, start]] of cases.entries()) {
    const own = process.cpuUsage();
    const children = childrenCpuMs();
    times[k]!.push(await waitFor(start));
    const used = process.cpuUsage(own);
    ownCpu[k]! += (used.user + used.system) / 1000;
    childCpu[k]! += childrenCpuMs() - children;
  }
}
const base = at(times[0]!, 0);
const cpu = (k: number) => `CPU a run: here ${ms(ownCpu[k]! / RUNS)}, children ${ms(childCpu[k]! / RUNS)}`;
for (const [k, [label]] of cases.entries()) {
  const extra = k === 0 ? "" : `; min over the first row +${(at(times[k]!, 0) - base).toFixed(2)} ms`;
  console.log(`${label}: ${figures(times[k]!)}, p25 ${ms(at(times[k]!, 0.25))}${extra}; ${cpu(k)}`);
}

// The worker's own check of a history-printing command (`git log -p`): its listing of the history,
// by git on the host (the sandbox off) and by git confined in bubblewrap (on). Each check runs one
// `git rev-parse` and `git for-each-ref`; the whole listing runs again only after the refs or the index change.
const history = path.join(root, "history");
fs.mkdirSync(history);
const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@b", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@b" };
execFileSync("bash", ["-c", "git init -q . && for i in $(seq 100); do echo $i > f$i.ts && git add f$i.ts && git commit -qm $i; done"], {
  cwd: history,
  env: gitEnv,
});
const historyGuard = new GuardCache(history).get(guardRules);
const confined = confinedGit(await new ShellRunner(history, on, { watch: false }).profile(historyGuard), empty);
const gits: [string, GitRunner | undefined][] = [
  ["git on the host", undefined],
  ["git confined in bubblewrap", confined],
];
for (const [label, git] of gits) {
  // The default rules ask for `git log -p`: the listing runs all the same, before the verdict.
  const check = async () => {
    try {
      await historyGuard.checkShell("git log -p -1", "rules", git);
    } catch (err) {
      if (!(err instanceof ToolRefusedError)) throw err;
    }
  };
  fs.writeFileSync(path.join(history, ".git", "refs", "heads", "touch"), execFileSync("git", ["rev-parse", "HEAD"], { cwd: history, env: gitEnv }));
  t0 = performance.now();
  await check();
  const listed = performance.now() - t0;
  const children = childrenCpuMs();
  const checks = await timedAsync(check, RUNS);
  const cpu = ms((childrenCpuMs() - children) / RUNS);
  console.log(
    `\`git log -p -1\` checked against a 100-commit history, ${label}: listing ${ms(listed)}; then ${figures(checks)}; its children's CPU ${cpu} a check`,
  );
  fs.rmSync(path.join(history, ".git", "refs", "heads", "touch"));
}
console.log(`load average at the end ${load()}`);
fs.rmSync(root, { recursive: true, force: true });
fs.rmSync(home, { recursive: true, force: true });
