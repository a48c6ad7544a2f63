import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import { closeClient, WORKER_LINK_PATH } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { waitUntil } from "./support/cluster.js";
import { ServerProcess } from "./support/server-process.js";

const BOX = "box-worker-token-0000001";
const FLOOD = "flood-worker-token-00001";
const ADA = "ada-client-token-0000001";
const SLOW = "slow-client-token-000001";
const FEEDER = "feeder-client-token-0001";

const config = (limits: Record<string, number>) => ({
  workerTokens: [
    { name: "box", token: BOX, workers: ["w1"] },
    { name: "flood", token: FLOOD, workers: ["wf"] },
  ],
  clientTokens: [
    { name: "ada", token: ADA, role: "admin" },
    { name: "slow", token: SLOW, role: "viewer" },
    { name: "feeder", token: FEEDER, role: "admin" },
  ],
  limits,
});

let server: ServerProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const httpBase = (s: ServerProcess) => s.url.replace(/^ws/, "http");

/** A subscription to every session's events as server-sent events, and what came of it so far. */
function openStream(s: ServerProcess, token: string) {
  const input = encodeURIComponent(JSON.stringify({ lastEventId: null }));
  const got = { text: "", ended: false, req: null as unknown as http.ClientRequest };
  got.req = http.get(`${httpBase(s)}/agent.onEvents?input=${input}`, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } }, (res) => {
    res.on("data", (d: Buffer) => (got.text += d.toString()));
    res.on("close", () => (got.ended = true));
  });
  got.req.on("error", () => (got.ended = true));
  return got;
}

async function post(s: ServerProcess, token: string, path: string, input: unknown): Promise<{ result?: { data: unknown }; error?: { message: string } }> {
  const res = await fetch(`${httpBase(s)}/${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  return (await res.json()) as { result?: { data: unknown }; error?: { message: string } };
}

describe("event streams count as connections", () => {
  it("refuses a token's stream past its connections with TOO_MANY_REQUESTS, counts WebSockets with them, and frees the slot when one closes", async () => {
    const s = (server = await ServerProcess.start(config({ connectionsPerToken: 3 })));
    const streams = [openStream(s, ADA), openStream(s, ADA), openStream(s, ADA)];
    await waitUntil(() => streams.every((x) => x.text.includes("event: connected")), 10_000, "three streams to open");

    // The fourth is answered with the error as the stream's one event, and ends.
    const fourth = openStream(s, ADA);
    await waitUntil(() => fourth.ended, 5000, "the fourth stream to end");
    const refusal = /^event: serialized-error\ndata: (.*)$/m.exec(fourth.text);
    expect(refusal).not.toBeNull();
    expect(JSON.parse(refusal![1]!)).toMatchObject({
      message: 'too many connections for the token "ada": it has 3 open, the most it may (limits.connectionsPerToken)',
      data: { code: "TOO_MANY_REQUESTS", httpStatus: 429, path: "agent.onEvents" },
    });
    await s.log.next(/"msg":"limit hit: connections per token".*"token":"ada"/);

    // A WebSocket of the same token is over the limit too; another token is not.
    let code: number | undefined;
    const ws = createNodeClient({ url: s.url, token: ADA, onClose: (cause) => (code ??= cause?.code), retryDelayMs: () => 60_000 });
    void ws.session.list.query().catch(() => undefined);
    await waitUntil(() => code !== undefined, 5000, "the WebSocket to be closed");
    expect(code).toBe(1008);
    await closeClient(ws);
    const other = openStream(s, SLOW);
    await waitUntil(() => other.text.includes("event: connected"), 5000, "another token's stream");

    streams[0]!.req.destroy();
    await waitUntil(
      async () => {
        const again = openStream(s, ADA);
        await waitUntil(() => again.ended || again.text.includes("event: connected"), 5000, "an answer");
        again.req.destroy();
        return !again.text.includes("serialized-error");
      },
      5000,
      "the closed stream's slot to be free",
    );
    for (const x of [...streams, other]) x.req.destroy();
  });

  it("closes the streams of a token removed from the config", async () => {
    const s = (server = await ServerProcess.start(config({})));
    const stream = openStream(s, SLOW);
    await waitUntil(() => stream.text.includes("event: connected"), 10_000, "the stream to open");
    const cfg = config({});
    s.writeConfig({ ...cfg, port: Number(new URL(s.url).port), dataDir: s.dataDir, clientTokens: cfg.clientTokens.filter((t) => t.name !== "slow") });
    await waitUntil(() => stream.ended, 5000, "the removed token's stream to close");
    await s.log.next(/"msg":"tokens reloaded".*"connectionsClosed":1/);
  });
});

describe("the log under a flood", () => {
  it("writes a warning that any connection can cause once a second, counting the ones held back", async () => {
    const s = (server = await ServerProcess.start(config({})));
    const refused = (l: string) => l.includes('"msg":"refused: missing or unknown token"');
    const wrong = () => fetch(`${httpBase(s)}/session.list`, { headers: { authorization: "Bearer wrong-token-0000000000" } });
    const started = Date.now();
    expect((await Promise.all(Array.from({ length: 100 }, wrong))).every((r) => r.status === 401)).toBe(true);
    const seconds = (Date.now() - started) / 1000;
    // One more after the window: its line counts the ones held back since the line before.
    await new Promise((r) => setTimeout(r, 1100));
    await wrong();
    await waitUntil(() => s.log.lines.filter(refused).length >= 2, 5000, "the last refusal line");
    const lines = s.log.lines.filter(refused);
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    const held = lines.map((l) => (JSON.parse(l) as { notLoggedSinceLastLine?: number }).notLoggedSinceLastLine ?? 0);
    expect(lines.length + held.reduce((a, b) => a + b, 0)).toBe(101);
  });
});

describe("a scenario file named by a client", () => {
  it("is read only when it is a small regular file, without blocking, and its errors do not quote it", async () => {
    const s = (server = await ServerProcess.start({
      ...config({}),
      clientTokens: [{ name: "ada", token: ADA, role: "approver", workers: ["w1"] }],
    }));
    await s.worker(BOX, "w1").err.next(/connected to ws:/);
    const fifo = `${s.root}/fifo`;
    execFileSync("mkfifo", [fifo]);
    fs.writeFileSync(`${s.root}/big.json`, " ".repeat(2 * 1024 * 1024));
    fs.writeFileSync(`${s.root}/secret.yaml`, "a: b: c\ntoken: s3cr3t-value\n");
    fs.writeFileSync(`${s.root}/secret.json`, "s3cr3t-value");
    const create = async (scenario: string) => (await post(s, ADA, "session.create", { workerId: "w1", scenario })).error?.message ?? "created";
    expect(await create(fifo)).toMatch(/fifo: it is a FIFO, not a regular file$/);
    expect(await create("/dev/zero")).toMatch(/it is a device, not a regular file$/);
    expect(await create(s.root)).toMatch(/it is a directory, not a regular file$/);
    expect(await create(`${s.root}/big.json`)).toMatch(/it is larger than 1048576 bytes$/);
    const yaml = await create(`${s.root}/secret.yaml`);
    expect(yaml).toMatch(/secret\.yaml: .*line 1, column 4$/);
    expect(await create(`${s.root}/secret.json`)).toMatch(/secret\.json: not valid JSON$/);
    expect(yaml + (await create(`${s.root}/secret.json`))).not.toContain("s3cr3t");
    fs.writeFileSync(`${s.root}/ok.json`, JSON.stringify({ steps: [{ text: "fine" }] }));
    expect(await create(`${s.root}/ok.json`)).toBe("created");
  });
});

describe("a subscriber that does not read", () => {
  it("is cut off once its backlog passes the limit, while the server and other subscribers go on", async () => {
    const backlog = 1024 * 1024;
    const s = (server = await ServerProcess.start(config({ subscriberBacklogBytes: backlog, requestsPerSecond: 1000 })));
    await s.worker(BOX, "w1").err.next(/connected to ws:/);
    const newSession = async () => ((await post(s, FEEDER, "session.create", { workerId: "w1" })).result!.data as { id: string }).id;

    // The slow reader reads the stream's head, then nothing more.
    const slow = net.connect(Number(new URL(s.url).port), "127.0.0.1");
    const input = encodeURIComponent(JSON.stringify({ lastEventId: null }));
    slow.write(`GET /agent.onEvents?input=${input} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${SLOW}\r\nAccept: text/event-stream\r\n\r\n`);
    let head = "";
    await new Promise<void>((resolve) =>
      slow.on("data", function onData(d: Buffer) {
        head += d.toString();
        if (!head.includes("event: connected")) return;
        slow.off("data", onData);
        slow.pause();
        resolve();
      }),
    );
    // Another subscriber watches one quiet session.
    const probe = await newSession();
    const watcher = await s.client(ADA);
    const seen: string[] = [];
    const sub = watcher.agent.onEvents.subscribe({ sessionId: probe, lastEventId: null }, { onData: (d) => seen.push(JSON.stringify(d.data)) });

    // 16 prompts of about 1 MB each: 16 MB of events for a subscriber to all sessions.
    const prompts = 16;
    for (let i = 0; i < prompts; i++) {
      const prompted = await post(s, FEEDER, "agent.prompt", { sessionId: await newSession(), text: `prompt-${i} ${"x".repeat(999_000)}` });
      expect(prompted.result?.data).toEqual({ accepted: true });
    }
    const cut = await s.log.next(/"msg":"limit hit: subscriber backlog".*"token":"slow"/);
    expect(JSON.parse(cut)).toMatchObject({ level: 40, limit: backlog });
    expect(JSON.parse(cut).queuedBytes).toBeLessThan(backlog + 1_100_000);

    await post(s, FEEDER, "agent.prompt", { sessionId: probe, text: "still here" });
    await waitUntil(() => seen.some((e) => e.includes("still here")), 10_000, "the watcher to see the probe's prompt");
    sub.unsubscribe();

    // When the slow reader reads again it finds what the kernel held, then the end of its connection.
    let later = 0;
    slow.on("data", (d: Buffer) => (later += d.length));
    slow.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => slow.once("close", () => resolve()));
    slow.resume();
    await closed;
    expect(later).toBeLessThan((prompts * 1_000_000) / 2);
  });
});

describe("a client sending the largest frames", () => {
  it("is read within the client frame limit, refused unread past it, while another client's calls keep flowing", async () => {
    const s = (server = await ServerProcess.start(config({ requestsPerSecond: 1000 })));
    const other = await s.client(ADA);
    let closed = false;
    const watched = await s.client(ADA, () => (closed = true));
    await watched.auth.whoami.query();
    const sender = async (frame: string) => {
      const ws = new WebSocket(`${s.url}?connectionParams=1`);
      await new Promise((r) => ws.once("open", r));
      ws.send(JSON.stringify({ method: "connectionParams", data: { token: FEEDER } }));
      const answer = new Promise<string>((r) => ws.on("message", (m: Buffer) => String(m).includes('"id":1') && r(String(m))));
      const close = new Promise<number>((r) => ws.once("close", (code) => r(code)));
      await new Promise((r) => setTimeout(r, 200));
      ws.send(frame);
      return { answer, close, ws };
    };
    const prompt = (chars: number) =>
      JSON.stringify({ id: 1, method: "mutation", params: { path: "agent.prompt", input: { sessionId: "none", text: "x".repeat(chars) } } });
    const envelope = prompt(0).length;

    let worst = 0;
    let flowing = true;
    const calls = (async () => {
      while (flowing) {
        const t0 = performance.now();
        await other.auth.whoami.query();
        worst = Math.max(worst, performance.now() - t0);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    // The largest frame a client may send (4 MiB), five times over, is read and answered.
    for (let i = 0; i < 5; i++) {
      const { answer, ws } = await sender(prompt(4 * 1024 * 1024 - envelope));
      expect(await answer).toMatch(/text is longer than 1000000 characters/);
      ws.close();
    }
    // One of 16 MB is refused before it is read (1009: too big), as a worker link would not be.
    const { close } = await sender(prompt(16_000_000));
    expect(await close).toBe(1009);
    flowing = false;
    await calls;
    expect(closed).toBe(false);
    expect(worst).toBeLessThan(1000);
    await s.log.next(/"msg":"limit hit: frame size"/);
  });
});

describe("a worker that floods its link", () => {
  it("is throttled to the token's rate, with nothing lost, while other workers and clients go on", async () => {
    const rate = 100;
    const s = (server = await ServerProcess.start(
      { ...config({ requestsPerSecond: rate }), heartbeatTimeoutMs: 60_000 },
      { "data/workers/w1/permissions.jsonc": `{ "read_file": "allow" }` },
    ));
    await s.worker(BOX, "w1").err.next(/connected to ws:/);
    const link = new WebSocket(s.url + WORKER_LINK_PATH, { headers: { authorization: `Bearer ${FLOOD}` } });
    const replies: string[] = [];
    link.on("message", (d) => replies.push(String(d)));
    await new Promise((r) => link.once("open", r));
    link.send(JSON.stringify({ type: "register", registration: { workerId: "wf", workDir: "/tmp", tools: [] } }));
    await waitUntil(() => replies.includes(JSON.stringify({ type: "registered", heartbeatTimeoutMs: 60_000 })), 5000, "the flooder to register");

    // Each of these messages is answered with an error: the answers count what the server handled.
    const sent = 1000;
    const started = Date.now();
    for (let i = 0; i < sent; i++) link.send(JSON.stringify({ type: "bogus", n: i }));
    await s.log.next(/"msg":"limit hit: worker link messages per second".*"token":"flood"/);

    // Meanwhile a client runs a tool call on another worker and the server answers it.
    const client = await s.client(ADA);
    const scenario = `${s.root}/read.json`;
    fs.writeFileSync(`${s.root}/work/a.txt`, "alpha");
    fs.writeFileSync(scenario, JSON.stringify({ name: "read", steps: [{ toolCalls: [{ tool: "read_file", args: { path: "a.txt" } }] }, { text: "done" }] }));
    const session = await client.session.create.mutate({ workerId: "w1", scenario });
    await client.agent.prompt.mutate({ sessionId: session.id, text: "go" });
    await waitUntil(
      async () => (await client.session.get.query({ sessionId: session.id })).history.some((m) => JSON.stringify(m).includes("alpha")),
      10_000,
      "the tool result on the other worker",
    );

    const seconds = (Date.now() - started) / 1000;
    const handled = replies.filter((r) => r.includes('"error"')).length;
    // A bucket of two seconds' worth, then the rate; a small margin for the first chunk read.
    expect(handled).toBeLessThanOrEqual(rate * 2 + rate * seconds + 20);
    expect(handled).toBeGreaterThan(rate);
    expect(handled).toBeLessThan(sent);
    expect(link.readyState).toBe(WebSocket.OPEN);

    // Nothing was dropped: given time, every message is answered.
    await waitUntil(() => replies.filter((r) => r.includes('"error"')).length === sent, 30_000, "every flooded message to be answered");
    link.close();
  }, 120_000);
});
