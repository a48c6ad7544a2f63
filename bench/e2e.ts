// End-to-end figures: one server and one worker as processes on loopback. Prints figures only.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { closeClient, type GatehouseClient } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { collect, cpuMs, percentile, rssMiB, waitFor } from "./measure.js";
import { pendingReplay } from "./replay.js";
import { allowShell, generateRepository, shellCalls, startShellWorker } from "./shell-sandbox.js";

// BENCH_ONLY=postgres: only the figures of bench/e2e-postgres.ts, which `pnpm bench:e2e` runs next.
if (process.env.BENCH_ONLY === "postgres") process.exit(0);
const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
// BENCH_PROFILE=DIR writes CPU profiles of the server and the worker there.
const NODE_ARGS = process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const WORKER_TOKEN = "bench-worker-token-000001";
const CLIENT_TOKEN = "bench-client-token-000001";
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-bench-e2e-")));
fs.mkdirSync(path.join(root, "work"));
fs.writeFileSync(path.join(root, "work", "a.txt"), "a");
fs.writeFileSync(
  path.join(root, "config.json"),
  JSON.stringify({
    port: 0,
    dataDir: path.join(root, "data"),
    workerTokens: [{ token: WORKER_TOKEN, name: "w", workers: ["*"] }],
    clientTokens: [{ token: CLIENT_TOKEN, name: "bench", role: "admin" }],
    maxSteps: 100_000,
    ...(process.env.BENCH_STORE === "memory" && { store: { kind: "memory" } }),
    limits: { requestsPerSecond: 1_000_000, subscriptionsPerToken: 100_000, connectionsPerToken: 1000 },
  }),
);

async function startProcesses(): Promise<{ server: ChildProcess; worker: ChildProcess; url: string }> {
  const server = spawn(process.execPath, [...NODE_ARGS, BIN, "server", "--config", path.join(root, "config.json")], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve) => readline.createInterface({ input: server.stdout! }).once("line", (l) => resolve(JSON.parse(l).port)));
  const url = `ws://127.0.0.1:${port}`;
  const worker = spawn(
    process.execPath,
    [...NODE_ARGS, BIN, "worker", "--server", url, "--token", WORKER_TOKEN, "--id", "w1", "--dir", path.join(root, "work")],
    { stdio: "ignore" },
  );
  return { server, worker, url };
}

function scenario(name: string, steps: unknown[]): string {
  const file = path.join(root, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ name, steps }));
  return file;
}

/** Runs `sessions` sessions at once, each `steps` steps of `perStep` allowed read_file calls. */
async function allowedCalls(
  client: GatehouseClient,
  sessions: number,
  steps: number,
  perStep: number,
  pids: { server: number; worker: number },
  shown = true,
): Promise<void> {
  const call = { tool: "read_file", args: { path: "a.txt" } };
  const file = scenario(`allowed-${sessions}`, [
    ...Array.from({ length: steps }, () => ({ toolCalls: Array.from({ length: perStep }, () => call) })),
    { text: "done" },
  ]);
  const ids = await Promise.all(Array.from({ length: sessions }, async () => (await client.session.create.mutate({ workerId: "w1", scenario: file })).id));
  const elapsed: number[] = [];
  let ended = 0;
  const subs = ids.map((id) =>
    collect(client, { sessionId: id }, (e) => {
      if (e.type === "tool_result") elapsed.push(e.elapsedMs);
      if (e.type === "turn_ended") ended++;
    }),
  );
  await new Promise((r) => setTimeout(r, 200));
  const t0 = performance.now();
  const cpu0 = [cpuMs(pids.server), cpuMs(pids.worker), cpuMs(process.pid)];
  await Promise.all(ids.map((sessionId) => client.agent.prompt.mutate({ sessionId, text: "go" })));
  await waitFor(() => ended === sessions, "the allowed-calls turns");
  const seconds = (performance.now() - t0) / 1000;
  const [serverCpu, workerCpu, clientCpu] = [cpuMs(pids.server) - cpu0[0]!, cpuMs(pids.worker) - cpu0[1]!, cpuMs(process.pid) - cpu0[2]!];
  for (const s of subs) s.unsubscribe();
  if (!shown) return;
  console.log(
    `allowed read_file calls, ${sessions} session(s) at once: ${elapsed.length} in ${seconds.toFixed(2)} s = ` +
      `${Math.round(elapsed.length / seconds)} calls/s; ` +
      `per call p50 ${percentile(elapsed, 0.5).toFixed(3)} ms, p99 ${percentile(elapsed, 0.99).toFixed(3)} ms; ` +
      `CPU per call: server ${((1000 * serverCpu) / elapsed.length).toFixed(0)} µs, worker ${((1000 * workerCpu) / elapsed.length).toFixed(0)} µs, ` +
      `client ${((1000 * clientCpu) / elapsed.length).toFixed(0)} µs`,
  );
}

async function approveToStart(client: GatehouseClient): Promise<void> {
  const n = 200;
  const file = scenario("asks", [
    ...Array.from({ length: n }, (_, i) => ({ toolCalls: [{ tool: "shell_exec", args: { command: `echo ${i}` } }] })),
    { text: "done" },
  ]);
  const s = await client.session.create.mutate({ workerId: "w1", scenario: file });
  const asks: string[] = [];
  const started: number[] = [];
  let ended = false;
  const sub = collect(client, { sessionId: s.id }, (e) => {
    if (e.type === "tool_approval_required") asks.push(e.approvalId);
    if (e.type === "tool_call_started") started.push(performance.now());
    if (e.type === "turn_ended") ended = true;
  });
  await new Promise((r) => setTimeout(r, 100));
  await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    await waitFor(() => asks.length > i, `approval ${i}`);
    const t0 = performance.now();
    await client.tool.approve.mutate({ sessionId: s.id, approvalId: asks[i]! });
    await waitFor(() => started.length > i, `tool start ${i}`);
    latencies.push(started[i]! - t0);
  }
  await waitFor(() => ended, "the approvals turn");
  sub.unsubscribe();
  console.log(
    `approve to tool start (${n} approvals, seen by the approving client): ` +
      `p50 ${percentile(latencies, 0.5).toFixed(2)} ms, p99 ${percentile(latencies, 0.99).toFixed(2)} ms`,
  );
}

async function manyPending(client: GatehouseClient, url: string, serverPid: number): Promise<void> {
  const n = 1000;
  const file = scenario("one-ask", [{ toolCalls: [{ tool: "shell_exec", args: { command: "echo held" } }] }]);
  const before = rssMiB(serverPid);
  let pending = 0;
  const sub = collect(client, {}, (e) => {
    if (e.type === "tool_approval_required") pending++;
  });
  for (let i = 0; i < n; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        const s = await client.session.create.mutate({ workerId: "w1", scenario: file });
        await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
      }),
    );
  }
  await waitFor(() => pending >= n, "1,000 pending approvals");
  sub.unsubscribe();
  const after = rssMiB(serverPid);
  const fresh = createNodeClient({ url, token: CLIENT_TOKEN });
  await fresh.session.list.query();
  let replayed = 0;
  const t0 = performance.now();
  const sub2 = collect(fresh, {}, (e) => {
    if (e.type === "tool_approval_required") replayed++;
  });
  await waitFor(() => replayed >= n, "the replay");
  const ms = performance.now() - t0;
  sub2.unsubscribe();
  await closeClient(fresh);
  console.log(
    `1,000 sessions with one pending approval each: server RSS ${before.toFixed(1)} -> ${after.toFixed(1)} MiB; ` +
      `replay of ${replayed} pending approvals to a new client: ${ms.toFixed(1)} ms`,
  );
}

/** Shell calls with and without the sandbox, on a small work directory and on a 20,000-file repository. */
async function shellFigures(client: GatehouseClient, url: string, repo: string): Promise<ChildProcess[]> {
  const workers: [string, string, "off" | "required", string][] = [
    ["plain", path.join(root, "work"), "off", "without the sandbox"],
    ["box", path.join(root, "work"), "required", "in the sandbox, small work directory"],
    ["big", repo, "required", "in the sandbox, 20,000-file repository"],
  ];
  const started = workers.map(([id, dir, sandbox]) => {
    allowShell(path.join(root, "data"), id);
    return startShellWorker(BIN, url, WORKER_TOKEN, id, dir, sandbox);
  });
  for (let i = 0; i < 400; i++) {
    const online = (await client.workers.list.query()).filter((w) => w.connected).length;
    if (online === workers.length + 1) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const [id, , , label] of workers) await shellCalls(client, id, label, 200, scenario, waitFor);
  return started;
}

const wantShell = process.env.BENCH_ONLY === "shell" || !process.env.BENCH_ONLY;
const wantReplay = process.env.BENCH_ONLY === "replay" || !process.env.BENCH_ONLY;
const repo = path.join(root, "repo");
if (wantShell) generateRepository(repo, 20_000);
const { server, worker, url } = await startProcesses();
const extraWorkers: ChildProcess[] = [];
try {
  const client = createNodeClient({ url, token: CLIENT_TOKEN });
  for (let i = 0; i < 200; i++) {
    const ok = await client.permissions.explain.query({ workerId: "w1", tool: "glob", args: {} }).then(
      () => true,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  console.log(`node ${process.version}, ${os.cpus().length} cores; server and worker as separate processes on loopback`);
  if (process.env.BENCH_ONLY !== "shell" && process.env.BENCH_ONLY !== "replay") {
    const pids = { server: server.pid!, worker: worker.pid! };
    // BENCH_STEPS=N: only the 20 sessions, N steps each; a run of 250 steps (50,000 calls) varies less between runs.
    // A warm-up first, not shown: the figures are of code the JIT has compiled, not of its
    // compiling, which takes its thread more than a second over the first 10,000 calls.
    await allowedCalls(client, 20, 50, 10, pids, false);
    if (!process.env.BENCH_STEPS) await allowedCalls(client, 1, 500, 10, pids);
    await allowedCalls(client, 20, Number(process.env.BENCH_STEPS ?? 50), 10, pids);
  }
  if (wantShell) extraWorkers.push(...(await shellFigures(client, url, repo)));
  if (!process.env.BENCH_ONLY) {
    await approveToStart(client);
    await manyPending(client, url, server.pid!);
  }
  if (wantReplay) await pendingReplay(root, Number(process.env.BENCH_REPLAY_SESSIONS ?? 10_000));
  await closeClient(client);
} finally {
  for (const w of extraWorkers) w.kill("SIGTERM");
  worker.kill("SIGTERM");
  server.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 500));
  fs.rmSync(root, { recursive: true, force: true });
}
