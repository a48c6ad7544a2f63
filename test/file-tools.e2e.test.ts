import fs from "node:fs";
import path from "node:path";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events, WORKER_TOKEN } from "./support/cluster.js";
import { flipLink } from "./support/link-flipper.js";

const SECRET = "KEY=file-tools-e2e-secret";
const READS = 1000;

let cluster: Cluster | undefined;
let home: string | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
  if (home) fs.rmSync(home, { recursive: true, force: true });
  home = undefined;
});

/**
 * A session playing `steps` (in the default mode, or `strict`, where what would ask is denied and
 * no person is needed); its results once the turn has ended.
 */
async function play(c: Cluster, client: GatehouseClient, steps: unknown[], timeoutMs = 120_000, mode: "default" | "strict" = "default") {
  const info = await client.session.create.mutate({ workerId: "w1", mode, scenario: c.scenario("s", steps) });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  await events.next("turn_ended", () => true, timeoutMs);
  return events.of("tool_result");
}

/** Steps of at most 100 calls each, then a last answer. */
const inSteps = (calls: unknown[]) => [
  ...Array.from({ length: Math.ceil(calls.length / 100) }, (_, i) => ({ text: "x", toolCalls: calls.slice(i * 100, i * 100 + 100) })),
  { text: "done" },
];

/** The worker's peak memory so far (VmHWM), in bytes. */
function peakMemory(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]!;
  return Number(kb) * 1024;
}

describe("file tools check what they really open, with a real server and worker", () => {
  it(`a symlink flipped between README.md and .env by another process never lets ${READS} reads see .env`, async () => {
    cluster = await Cluster.start({
      files: { "README.real": "a harmless readme\n", ".env": `${SECRET}\n` },
      rules: `{"*": "ask", "read_file": {"*": "allow", ".env": "deny"}}`,
    });
    const link = path.join(cluster.workDir, "README.md");
    fs.symlinkSync("README.real", link);
    const flipper = flipLink(link, "README.real", ".env");
    try {
      const results = await play(cluster, cluster.client(), inSteps(Array.from({ length: READS }, () => ({ tool: "read_file", args: { path: "README.md" } }))));
      expect(results).toHaveLength(READS);
      const read = results.filter((r) => r.ok && r.output === "a harmless readme\n").length;
      const refused = results.filter((r) => !r.ok && /\.env/.test(r.output)).length;
      expect(JSON.stringify(results)).not.toContain("file-tools-e2e-secret");
      // The race really ran: some reads found the readme, some found .env and were refused.
      expect(read).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
    } finally {
      await flipper.stop();
    }
  }, 240_000);

  it("grep over a symlink flipped between README.md and .env never finds what .env holds", async () => {
    cluster = await Cluster.start({
      files: { "README.real": "KEY: see the docs\n", ".env": `${SECRET}\n` },
      rules: `{"*": "ask", "grep": "allow", "read_file": {"*": "allow", ".env": "deny"}}`,
    });
    const link = path.join(cluster.workDir, "README.md");
    fs.symlinkSync("README.real", link);
    const flipper = flipLink(link, "README.real", ".env");
    try {
      const calls = Array.from({ length: 600 }, () => ({ tool: "grep", args: { pattern: "KEY", path: "README.md" } }));
      const results = await play(cluster, cluster.client(), inSteps(calls));
      expect(results).toHaveLength(600);
      expect(JSON.stringify(results)).not.toContain("file-tools-e2e-secret");
      expect(results.some((r) => r.output.startsWith("README.md:1:KEY: see the docs"))).toBe(true);
      expect(results.some((r) => /skipped: read_file does not allow them/.test(r.output))).toBe(true);
    } finally {
      await flipper.stop();
    }
  }, 240_000);

  it("glob and grep judge what a symlink in the work directory really reaches: nothing read_file would refuse is listed or searched", async () => {
    home = fs.mkdtempSync("/var/tmp/gh-private-");
    fs.writeFileSync(path.join(home, "diary.txt"), "private diary: glob-grep-e2e-secret\n");
    cluster = await Cluster.start({
      files: { "README.md": "a readme\n" },
      rules: `{"*": "ask", "glob": "allow", "grep": "allow", "read_file": {"*": "allow", "${home}/*": "ask"}}`,
    });
    fs.symlinkSync(path.join(home, "diary.txt"), path.join(cluster.workDir, "notes.md"));
    fs.symlinkSync(home, path.join(cluster.workDir, "shared"));
    const calls = [
      { tool: "read_file", args: { path: "notes.md" } },
      { tool: "grep", args: { pattern: "diary", path: "." } },
      { tool: "grep", args: { pattern: "diary", path: "shared" } },
      { tool: "grep", args: { pattern: "diary", path: "notes.md" } },
      { tool: "glob", args: { pattern: "**" } },
      { tool: "glob", args: { pattern: "**", path: "shared" } },
    ];
    const results = await play(cluster, cluster.client(), inSteps(calls), 120_000, "strict");
    expect(results.map((r) => r.ok)).toEqual([false, true, true, true, true, true]);
    expect(results[0]!.output).toMatch(/resolves to .*diary\.txt.*ask/);
    expect(JSON.stringify(results)).not.toContain("glob-grep-e2e-secret");
    expect(results[1]!.output).toBe("(no matches)\n(1 file(s) skipped: read_file does not allow them)");
    expect(results[2]!.output).toBe("(no matches)\n(1 file(s) skipped: read_file does not allow them)");
    expect(results[4]!.output).toBe("README.md\n(1 file(s) skipped: read_file does not allow them)");
    expect(results[5]!.output).toBe("(no files match)\n(1 file(s) skipped: read_file does not allow them)");
  });

  it("a symlink flipped between a file in the work directory and one outside never lets a write out", async () => {
    cluster = await Cluster.start({ files: { "notes.real": "" }, rules: `{"*": "ask", "write_file": "allow"}` });
    const victim = path.join(cluster.root, "victim.txt");
    fs.writeFileSync(victim, "untouched\n");
    const link = path.join(cluster.workDir, "notes.md");
    fs.symlinkSync("notes.real", link);
    const flipper = flipLink(link, "notes.real", victim);
    try {
      const calls = Array.from({ length: 200 }, () => ({ tool: "write_file", args: { path: "notes.md", content: "written by the agent\n" } }));
      // Decided on where the link leads just before each runs, a write outside asks: strict denies it.
      const results = await play(cluster, cluster.client(), inSteps(calls), 120_000, "strict");
      expect(results).toHaveLength(200);
      expect(results.some((r) => r.ok)).toBe(true);
      expect(results.some((r) => !r.ok && /outside the work directory/.test(r.output))).toBe(true);
      expect(fs.readFileSync(victim, "utf8")).toBe("untouched\n");
    } finally {
      await flipper.stop();
    }
  }, 180_000);

  it("`~` is the home directory to the worker as to the gate: a folder named `~` leading to /proc reveals nothing", async () => {
    home = fs.mkdtempSync("/var/tmp/gh-home-");
    cluster = await Cluster.start({ rules: `{"*": "ask", "read_file": "allow"}`, workerEnv: { HOME: home } });
    fs.symlinkSync("/proc", path.join(cluster.workDir, "~"));
    const paths = ["~/self/cmdline", "~/self/environ", "./~/self/cmdline", "~/1/cmdline"];
    const results = await play(cluster, cluster.client(), inSteps(paths.map((p) => ({ tool: "read_file", args: { path: p } }))));
    expect(results).toHaveLength(paths.length);
    for (const r of results) expect(r.ok).toBe(false);
    expect(results[0]!.output).toMatch(new RegExp(`no such file or directory.*${home}/self/cmdline`));
    expect(JSON.stringify(results)).not.toContain(WORKER_TOKEN);
  });

  it("the skill tool and the skills list refuse skills that lead outside the skills folder", async () => {
    home = fs.mkdtempSync("/var/tmp/gh-home-");
    fs.mkdirSync(path.join(home, ".ssh"));
    fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "PRIVATE-KEY-skill-e2e\n");
    cluster = await Cluster.start({
      files: { ".env": `${SECRET}\n`, "skills/deploy.md": "---\ndescription: ship it\n---\nRun the deploy.\n" },
      rules: `{"*": "ask", "skill": "allow"}`,
      workerEnv: { HOME: home },
    });
    const skills = path.join(cluster.workDir, "skills");
    fs.symlinkSync("../.env", path.join(skills, "env.md"));
    fs.symlinkSync("/proc/self/environ", path.join(skills, "environ.md"));
    fs.symlinkSync(path.join(home, ".ssh", "id_rsa"), path.join(skills, "key.md"));
    // The worker lists its skills when it registers: again, now that the links are there.
    await cluster.killWorker();
    await cluster.startWorker([], { HOME: home });
    const [worker] = await cluster.client().workers.list.query();
    expect(worker!.skills).toEqual([{ name: "deploy", description: "ship it" }]);
    const names = ["env", "environ", "key", "deploy"];
    const results = await play(cluster, cluster.client(), inSteps(names.map((name) => ({ tool: "skill", args: { name } }))));
    expect(results.map((r) => r.ok)).toEqual([false, false, false, true]);
    for (const r of results.slice(0, 3)) expect(r.output).toMatch(/outside skills\/|is on procfs/);
    const all = JSON.stringify(results);
    for (const secret of ["file-tools-e2e-secret", "PRIVATE-KEY-skill-e2e", WORKER_TOKEN]) expect(all).not.toContain(secret);
  });

  it("grep streams a huge file to its end without growing the worker, and a catastrophic pattern stops with a clear error while the worker goes on", async () => {
    cluster = await Cluster.start({
      rules: `{"*": "ask", "read_file": "allow", "grep": "allow"}`,
      files: { "slow.txt": `${"a".repeat(40)}!\n`, "small.txt": "hi\n" },
    });
    const huge = path.join(cluster.workDir, "huge.log");
    const block = `${"x".repeat(99)}\n`.repeat(10_000);
    const fd = fs.openSync(huge, "w");
    for (let i = 0; i < 160; i++) fs.writeSync(fd, block);
    fs.writeSync(fd, "the needle at the very end\n");
    fs.closeSync(fd);
    const before = peakMemory(cluster.worker!.pid!);
    const [found] = await play(cluster, cluster.client(), inSteps([{ tool: "grep", args: { pattern: "needle", path: "huge.log" } }]));
    expect(found).toMatchObject({ ok: true, output: "huge.log:1600001:the needle at the very end" });
    expect(peakMemory(cluster.worker!.pid!) - before).toBeLessThan(64 * 1024 * 1024);

    const client = cluster.client();
    const slow = play(cluster, client, inSteps([{ tool: "grep", args: { pattern: "^(a+)+$", path: "slow.txt" } }]));
    await new Promise((r) => setTimeout(r, 300));
    // Another session's read is answered while the pattern runs: the worker's event loop is free.
    const started = performance.now();
    const [read] = await play(cluster, client, inSteps([{ tool: "read_file", args: { path: "small.txt" } }]));
    expect(read).toMatchObject({ ok: true, output: "hi\n" });
    const [stopped] = await slow;
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(stopped).toMatchObject({ ok: false, output: expect.stringMatching(/^grep: the pattern ran longer than 2000 ms on slow\.txt and was stopped/) });
    expect((await client.workers.list.query())[0]).toMatchObject({ connected: true });
  });

  it("read_file of a huge file reads a bounded part, and files that are not regular or are the kernel's are refused", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "read_file": "allow"}` });
    const huge = path.join(cluster.workDir, "huge.log");
    fs.writeFileSync(huge, "first line\n");
    fs.truncateSync(huge, 600 * 1024 * 1024);
    fs.symlinkSync("/proc/cpuinfo", path.join(cluster.workDir, "cpu.txt"));
    fs.symlinkSync("/dev/zero", path.join(cluster.workDir, "zero.txt"));
    const before = peakMemory(cluster.worker!.pid!);
    const calls = ["huge.log", "cpu.txt", "zero.txt"].map((p) => ({ tool: "read_file", args: { path: p } }));
    const [big, cpu, zero, first] = await play(
      cluster,
      cluster.client(),
      inSteps([...calls, { tool: "read_file", args: { path: "huge.log", offset: 1, limit: 1 } }]),
    );
    expect(big).toMatchObject({ ok: true, truncated: true });
    expect(big!.output).toMatch(/read_file read the first 4194304 bytes of huge\.log/);
    expect(peakMemory(cluster.worker!.pid!) - before).toBeLessThan(64 * 1024 * 1024);
    expect(cpu).toMatchObject({ ok: false, output: expect.stringMatching(/cpu\.txt is on procfs/) });
    expect(zero).toMatchObject({ ok: false, output: expect.stringMatching(/zero\.txt is not a regular file/) });
    expect(first).toMatchObject({ ok: true, output: "first line" });
  });
});
