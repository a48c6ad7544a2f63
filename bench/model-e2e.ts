// End to end on the model path: a server and a worker as processes, sessions of 10 turns of 9
// allowed read_file calls, driven by a local model endpoint (bench/model-endpoint.ts) and, side by
// side, by the scripted model playing the same calls. Prints calls a second, the per-call time
// from its turn in the batch to its result (p50), and the server's CPU per call. Figures only.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { closeClient, type GatehouseClient } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { collect, percentile, waitFor } from "./measure.js";

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const TURNS = 10;
const CALLS = 9;
const API = (process.env.BENCH_API ?? "openai-compatible") as "openai-compatible" | "anthropic";
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-bench-model-")));
fs.mkdirSync(path.join(root, "work"));
fs.writeFileSync(path.join(root, "work", "a.txt"), "a");

const firstLine = (child: ChildProcess) => new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once("line", resolve));
const cpuMs = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};

const endpoint = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "model-endpoint.ts")], {
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, BENCH_TURN_CALLS: String(CALLS), BENCH_READ_PATH: "a.txt" },
});
const endpointURL = `http://127.0.0.1:${(await firstLine(endpoint)).trim()}/v1`;
fs.writeFileSync(
  path.join(root, "config.json"),
  JSON.stringify({
    port: 0,
    dataDir: path.join(root, "data"),
    workerTokens: [{ token: "bench-model-worker-token-01", name: "w", workers: ["*"] }],
    clientTokens: [{ token: "bench-model-client-token-01", name: "bench", role: "admin" }],
    maxSteps: 1000,
    providers: { mock: { api: API, baseURL: endpointURL, apiKeyEnv: "BENCH_MODEL_KEY" } },
    limits: { requestsPerSecond: 1_000_000, subscriptionsPerToken: 100_000, connectionsPerToken: 1000 },
  }),
);
const NODE_ARGS = process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const server = spawn(process.execPath, [...NODE_ARGS, BIN, "server", "--config", path.join(root, "config.json")], {
  stdio: ["ignore", "pipe", "ignore"],
  env: { ...process.env, BENCH_MODEL_KEY: "sk-bench" },
});
const url = `ws://127.0.0.1:${(JSON.parse(await firstLine(server)) as { port: number }).port}`;
const worker = spawn(
  process.execPath,
  [BIN, "worker", "--server", url, "--token", "bench-model-worker-token-01", "--id", "w1", "--dir", path.join(root, "work")],
  { stdio: "ignore" },
);

const scenario = path.join(root, "turns.json");
const calls = { toolCalls: Array.from({ length: CALLS }, () => ({ tool: "read_file", args: { path: "a.txt" } })) };
fs.writeFileSync(scenario, JSON.stringify({ name: "turns", steps: Array.from({ length: TURNS }, () => [calls, { text: "done" }]).flat() }));

/** `sessions` sessions at once, each `TURNS` turns one after another; printed unless it is the warm-up. */
async function run(client: GatehouseClient, model: "scripted" | "mock:bench-model", sessions: number, warmUp = false): Promise<void> {
  const ids = await Promise.all(
    Array.from(
      { length: sessions },
      async () => (await client.session.create.mutate({ workerId: "w1", ...(model === "scripted" ? { scenario } : { model }) })).id,
    ),
  );
  const elapsed: number[] = [];
  const ended = new Map<string, number>(ids.map((id) => [id, 0]));
  const subs = ids.map((id) =>
    collect(client, { sessionId: id }, (e) => {
      if (e.type === "tool_result") elapsed.push(e.elapsedMs);
      if (e.type === "turn_ended") ended.set(id, ended.get(id)! + 1);
    }),
  );
  await new Promise((r) => setTimeout(r, 200));
  const t0 = performance.now();
  const cpu0 = cpuMs(server.pid!);
  await Promise.all(
    ids.map(async (sessionId) => {
      for (let turn = 1; turn <= TURNS; turn++) {
        await client.agent.prompt.mutate({ sessionId, text: `turn ${turn}` });
        await waitFor(() => ended.get(sessionId)! >= turn, `turn ${turn} of ${sessionId}`);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuMs(server.pid!) - cpu0;
  for (const s of subs) s.unsubscribe();
  if (warmUp) return;
  console.log(
    `${model.padEnd(16)} ${String(sessions).padStart(2)} session(s): ${Math.round(elapsed.length / seconds)} calls/s, ` +
      `per call p50 ${percentile(elapsed, 0.5).toFixed(2)} ms, p99 ${percentile(elapsed, 0.99).toFixed(2)} ms, ` +
      `server CPU per call ${((1000 * cpu) / elapsed.length).toFixed(0)} µs, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
}

try {
  const client = createNodeClient({ url, token: "bench-model-client-token-01" });
  for (let i = 0; i < 200 && !(await client.workers.list.query()).some((w) => w.connected); i++) await new Promise((r) => setTimeout(r, 50));
  console.log(`${TURNS} turns of ${CALLS} read_file calls a session, the model endpoint speaking ${API}`);
  // Sessions on each model first, unmeasured: the server loads the AI SDK on its first real model,
  // and its JIT settles, as in a server that has run for a while (a single session left most of
  // a step's code unoptimised, costing about twice its CPU). BENCH_WARMUP_SESSIONS at once; 0 for none.
  const warmUp = Number(process.env.BENCH_WARMUP_SESSIONS ?? 20);
  if (warmUp > 0) for (const model of ["scripted", "mock:bench-model"] as const) await run(client, model, warmUp, true);
  for (const sessions of process.env.BENCH_SESSIONS ? process.env.BENCH_SESSIONS.split(",").map(Number) : [1, 20])
    for (const model of ["scripted", "mock:bench-model", "scripted", "mock:bench-model"] as const)
      if (!process.env.BENCH_MODELS || process.env.BENCH_MODELS.split(",").includes(model)) await run(client, model, sessions);
  await closeClient(client);
} finally {
  for (const child of [worker, server, endpoint]) child.kill();
  fs.rmSync(root, { recursive: true, force: true });
}
