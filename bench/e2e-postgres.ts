// End-to-end figures with the PostgreSQL store: two server instances on one database (a PostgreSQL
// server of its own, durable settings), a worker on each, as processes on loopback. Prints figures only.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { closeClient } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import pg from "pg";
import { CLIENT_TOKEN, Instances } from "../test/support/instances.js";
import { TestPostgres } from "../test/support/postgres.js";
import { collect, percentile, waitFor } from "./measure.js";

// BENCH_ONLY set to another part (shell, say) leaves these figures out.
if (process.env.BENCH_ONLY && process.env.BENCH_ONLY !== "postgres") process.exit(0);

/** Two instances on one database under load can take minutes for the larger runs. */
const SLOW_MS = 300_000;

/**
 * `sessions` sessions at once, each `steps` steps of `perStep` allowed read_file calls; each
 * session is created on the instance of `placement(i)` for the worker `worker(i)`.
 */
async function allowedCalls(set: Instances, label: string, sessions: number, steps: number, perStep: number, place: (i: number) => ["a" | "b", string]) {
  const call = { tool: "read_file", args: { path: "a.txt" } };
  const file = set.scenario(`allowed-${label.replace(/\W+/g, "-")}`, [
    ...Array.from({ length: steps }, () => ({ toolCalls: Array.from({ length: perStep }, () => call) })),
    { text: "done" },
  ]);
  const clients = { a: set.client("a"), b: set.client("b") };
  const created = await Promise.all(
    Array.from({ length: sessions }, async (_, i) => {
      const [on, workerId] = place(i);
      return { on, id: (await clients[on].session.create.mutate({ workerId, scenario: file })).id };
    }),
  );
  const elapsed: number[] = [];
  let ended = 0;
  // Each session is watched from the other instance than the one running it: every event crosses.
  const subs = created.map(({ on, id }) =>
    collect(clients[on === "a" ? "b" : "a"], { sessionId: id }, (e) => {
      if (e.type === "tool_result") elapsed.push(e.elapsedMs);
      if (e.type === "turn_ended") ended++;
    }),
  );
  await new Promise((r) => setTimeout(r, 300));
  const t0 = performance.now();
  await Promise.all(created.map(({ on, id }) => clients[on].agent.prompt.mutate({ sessionId: id, text: "go" })));
  await waitFor(() => ended === sessions, "the allowed-calls turns", SLOW_MS);
  const seconds = (performance.now() - t0) / 1000;
  for (const s of subs) s.unsubscribe();
  console.log(
    `allowed read_file calls, ${label}: ${elapsed.length} in ${seconds.toFixed(2)} s = ` +
      `${Math.round(elapsed.length / seconds)} calls/s; per call p50 ${percentile(elapsed, 0.5).toFixed(3)} ms, p99 ${percentile(elapsed, 0.99).toFixed(3)} ms`,
  );
}

/** 1,000 sessions with one pending approval each, half on each instance; then a new client of one instance is sent them all. */
async function replayPending(set: Instances): Promise<void> {
  const n = 1000;
  const file = set.scenario("one-ask", [{ toolCalls: [{ tool: "shell_exec", args: { command: "echo held" } }] }]);
  const clients = { a: set.client("a"), b: set.client("b") };
  let pending = 0;
  const sub = collect(clients.b, {}, (e) => {
    if (e.type === "tool_approval_required") pending++;
  });
  for (let i = 0; i < n; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, async (_, j) => {
        const [on, workerId] = (i + j) % 2 ? (["a", "w1"] as const) : (["b", "w2"] as const);
        const s = await clients[on].session.create.mutate({ workerId, scenario: file });
        await clients[on].agent.prompt.mutate({ sessionId: s.id, text: "go" });
      }),
    );
  }
  await waitFor(() => pending >= n, "1,000 pending approvals", SLOW_MS);
  sub.unsubscribe();
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const fresh = createNodeClient({ url: set.get("b").url, token: CLIENT_TOKEN });
    await fresh.session.list.query();
    let replayed = 0;
    const t0 = performance.now();
    const sub2 = collect(fresh, {}, (e) => {
      if (e.type === "tool_approval_required") replayed++;
    });
    await waitFor(() => replayed >= n, "the replay", SLOW_MS);
    times.push(performance.now() - t0);
    sub2.unsubscribe();
    await closeClient(fresh);
  }
  console.log(
    `  replay of ${n} pending approvals (from both instances) to a new client: median ` +
      `${percentile(times, 0.5).toFixed(1)} ms of 5, best ${Math.min(...times).toFixed(1)} ms`,
  );
}

/** Two instances on a new database of `postgres`, a worker on each; `urlOptions` is appended to the database's URL. */
async function instances(postgres: TestPostgres, urlOptions = ""): Promise<Instances> {
  const set = await Instances.start((await postgres.database()) + urlOptions, ["a", "b"], {
    files: { "a.txt": "a" },
    config: { maxSteps: 100_000, limits: { requestsPerSecond: 1_000_000, subscriptionsPerToken: 100_000, connectionsPerToken: 1000 } },
  });
  await set.worker("w1", "a");
  await set.worker("w2", "b");
  return set;
}

/** How long the database takes to hand over every pending approval, the query a replay starts with. */
async function pendingQuery(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await client.query("SELECT event, event_id FROM pending_approvals ORDER BY event_id");
    times.push(performance.now() - t0);
  }
  await client.end();
  return percentile(times, 0.5);
}

const postgres = await TestPostgres.start({ durable: true });
let set: Instances | undefined;
try {
  console.log(
    `node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}; PostgreSQL ` +
      `15, two server instances and a worker on each, as processes on loopback`,
  );
  console.log("durable commits (synchronous_commit on, fsync on):");
  set = await instances(postgres);
  await allowedCalls(set, "1 session, its worker on its own instance", 1, 100, 10, () => ["a", "w1"]);
  await allowedCalls(set, "1 session, its worker on the other instance", 1, 50, 10, () => ["a", "w2"]);
  await allowedCalls(set, "20 sessions at once, 10 on each instance", 20, 10, 10, (i) => (i % 2 ? ["a", "w1"] : ["b", "w2"]));
  await replayPending(set);
  const url = JSON.parse(fs.readFileSync(path.join(set.root, "a.json"), "utf8")).store.url as string;
  console.log(`  of which the database's query of the 1,000 pending approvals: median ${(await pendingQuery(url)).toFixed(1)} ms of 5`);
  await set.stop();
  console.log("commits acknowledged before they are flushed (?options=-c synchronous_commit=off in the URL):");
  set = await instances(postgres, "?options=-c%20synchronous_commit%3Doff");
  await allowedCalls(set, "1 session, its worker on its own instance", 1, 100, 10, () => ["a", "w1"]);
  await allowedCalls(set, "20 sessions at once, 10 on each instance", 20, 10, 10, (i) => (i % 2 ? ["a", "w1"] : ["b", "w2"]));
} finally {
  await set?.stop();
  postgres.stop();
}
