// The replay of many pending approvals to a client that watches every session (the browser
// console's inbox): 10,000 sessions on 1,000 worker ids, each holding one approval. One real
// session is driven to its approval, the server is killed, and its rows are copied into the state
// file under new ids; the server then carries the 10,000 turns on at start, and a fresh client
// subscribes to everything as the console does (from event 0, resubscribing from its last id when
// the stream ends).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { closeClient, type ApprovalRequired, type GatehouseEvent, type Message, type SessionInfo } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { EmbeddedStore } from "../apps/server/src/store/embedded-store.js";
import { collect, cpuMs, rssMiB, waitFor } from "./measure.js";

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const WORKER_TOKEN = "bench-worker-token-000001";
const CLIENT_TOKEN = "bench-client-token-000001";

async function startServer(config: string): Promise<{ server: ChildProcess; url: string }> {
  const server = spawn(process.execPath, [BIN, "server", "--config", config], { stdio: ["ignore", "pipe", "ignore"] });
  const port = await new Promise<number>((resolve) => readline.createInterface({ input: server.stdout! }).once("line", (l) => resolve(JSON.parse(l).port)));
  return { server, url: `ws://127.0.0.1:${port}` };
}

/** One real session held at its approval, then the server killed with it pending. */
async function template(root: string, config: string): Promise<void> {
  const { server, url } = await startServer(config);
  const worker = spawn(process.execPath, [BIN, "worker", "--server", url, "--token", WORKER_TOKEN, "--id", "w0", "--dir", root], { stdio: "ignore" });
  const client = createNodeClient({ url, token: CLIENT_TOKEN });
  try {
    for (let i = 0; i < 400 && !(await client.workers.list.query()).some((w) => w.connected); i++) await new Promise((r) => setTimeout(r, 50));
    const file = path.join(root, "one-ask.json");
    fs.writeFileSync(file, JSON.stringify({ name: "one-ask", steps: [{ toolCalls: [{ tool: "shell_exec", args: { command: "echo held" } }] }] }));
    const s = await client.session.create.mutate({ workerId: "w0", scenario: file });
    let asked = false;
    const sub = collect(client, { sessionId: s.id }, (e) => (asked ||= e.type === "tool_approval_required"));
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    await waitFor(() => asked, "the template's approval");
    sub.unsubscribe();
  } finally {
    await closeClient(client);
    server.kill("SIGKILL");
    worker.kill("SIGKILL");
    await new Promise((r) => server.once("exit", r));
  }
}

/** Copies the one session's rows `n` times under new session, approval and call ids, spread over `workers` worker ids. */
async function copySessions(stateFile: string, n: number, workers: number): Promise<void> {
  const store = new EmbeddedStore(stateFile);
  const [session] = await store.listSessions();
  const messages = JSON.stringify(await store.messages(session!.id));
  const events = JSON.stringify((await store.eventsAfter(0, session!.id)).map((e) => e.event));
  const [pending] = await store.listPending(session!.id);
  const { approvalId, callId } = pending!.event;
  const rename = (text: string, i: number) =>
    text
      .replaceAll(session!.id, `copy-${i}`)
      .replaceAll(approvalId, `approval-${i}`)
      .replaceAll(callId, `call-${i}`)
      .replaceAll('"w0"', `"w${i % workers}"`);
  for (let i = 1; i < n; i++) {
    await store.putSession(JSON.parse(rename(JSON.stringify(session), i)) as SessionInfo);
    for (const m of JSON.parse(rename(messages, i)) as Message[]) await store.appendMessage(`copy-${i}`, m);
    for (const e of JSON.parse(rename(events, i)) as GatehouseEvent[]) {
      const stored = await store.appendEvent(`copy-${i}`, e);
      if (e.type === "tool_approval_required") await store.putPending({ event: e, eventId: stored.id });
    }
  }
  await store.close();
}

interface Replay {
  ms: number | null;
  seen: number;
  repeats: number;
  subscriptions: number;
  errors: string[];
  peakRss: number;
  cpuMs: number;
}

/** Subscribes to everything from event 0 as the console does (again from the last id after an error, a second later) until `n` distinct approvals came or `limitMs` passed. */
async function replay(url: string, pid: number, n: number, limitMs: number): Promise<Replay> {
  const client = createNodeClient({ url, token: CLIENT_TOKEN });
  await client.session.list.query();
  const seen = new Set<string>();
  const result: Replay = { ms: null, seen: 0, repeats: 0, subscriptions: 0, errors: [], peakRss: rssMiB(pid), cpuMs: cpuMs(pid) };
  let lastEventId = "0";
  let sub: { unsubscribe(): void } | null = null;
  const subscribe = () => {
    result.subscriptions++;
    sub = client.agent.onEvents.subscribe(
      { lastEventId },
      {
        onData: (d) => {
          if (d.id) lastEventId = d.id;
          const e = d.data as ApprovalRequired;
          if (e.type !== "tool_approval_required") return;
          if (seen.has(e.approvalId)) result.repeats++;
          seen.add(e.approvalId);
        },
        onError: (err) => {
          result.errors.push(err.message);
          setTimeout(subscribe, 1000);
        },
      },
    );
  };
  const t0 = performance.now();
  const sampler = setInterval(() => (result.peakRss = Math.max(result.peakRss, rssMiB(pid))), 20);
  subscribe();
  await waitFor(() => seen.size >= n, "the replay", limitMs).then(
    () => (result.ms = performance.now() - t0),
    () => undefined,
  );
  clearInterval(sampler);
  result.cpuMs = cpuMs(pid) - result.cpuMs;
  result.seen = seen.size;
  sub!.unsubscribe();
  await closeClient(client);
  return result;
}

/** Prints the figures of the replay of `n` pending approvals on `workers` worker ids. */
export async function pendingReplay(root: string, n = 10_000, workers = 1000): Promise<void> {
  const config = path.join(root, "replay-config.json");
  const dataDir = path.join(root, "replay-data");
  fs.writeFileSync(
    config,
    JSON.stringify({
      port: 0,
      dataDir,
      workerTokens: [{ token: WORKER_TOKEN, name: "w", workers: ["*"] }],
      clientTokens: [{ token: CLIENT_TOKEN, name: "bench", role: "admin" }],
      limits: { requestsPerSecond: 1_000_000, subscriptionsPerToken: 100_000, connectionsPerToken: 1000 },
      // No worker of the copies comes back: their turns wait for them briefly, then for their answers.
      heartbeatTimeoutMs: 200,
    }),
  );
  await template(root, config);
  await copySessions(path.join(dataDir, "state.db"), n, workers);
  const t0 = performance.now();
  const { server, url } = await startServer(config);
  const startMs = performance.now() - t0;
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const before = rssMiB(server.pid!);
    const r = await replay(url, server.pid!, n, 60_000);
    console.log(
      `${n.toLocaleString("en")} sessions on ${workers.toLocaleString("en")} worker ids, one pending approval each ` +
        `(server start ${(startMs / 1000).toFixed(1)} s): replay to a client watching every session ` +
        `${r.ms === null ? `not done in 60 s (${r.seen} distinct)` : `${r.ms.toFixed(0)} ms`}, server CPU ${r.cpuMs.toFixed(0)} ms; ` +
        `server RSS ${before.toFixed(0)} MiB before, ${r.peakRss.toFixed(0)} MiB at most during it; ` +
        `${r.subscriptions} subscription(s), ${r.repeats} repeated, ${r.errors.length} stream error(s)${r.errors[0] ? ` (first: ${r.errors[0]})` : ""}`,
    );
  } finally {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
  }
}
