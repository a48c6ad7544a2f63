import { WORKER_LINK_PATH } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { waitUntil } from "./support/cluster.js";
import { ServerProcess } from "./support/server-process.js";

const FLEET = "fleet-worker-token-00001";
const ADA = "ada-client-token-0000001";

const config = (limits: Record<string, number> = {}) => ({
  workerTokens: [{ name: "fleet", token: FLEET, workers: ["*"] }],
  clientTokens: [{ name: "ada", token: ADA, role: "admin" }],
  limits,
});

let server: ServerProcess | undefined;
const links: WebSocket[] = [];
afterEach(async () => {
  for (const l of links.splice(0)) l.terminate();
  await server?.stop();
  server = undefined;
});

/** A worker link as a worker opens it, registered as `workerId`; it sends a heartbeat every second, as a worker does. */
async function link(s: ServerProcess, workerId: string): Promise<{ closed: number | null }> {
  const ws = new WebSocket(s.url + WORKER_LINK_PATH, { headers: { authorization: `Bearer ${FLEET}` } });
  links.push(ws);
  const state = { closed: null as number | null, registered: false };
  ws.on("close", (code) => (state.closed = code));
  ws.on("message", (d) => (state.registered ||= String(d).includes('"registered"')));
  ws.on("error", () => undefined);
  await new Promise((r) => ws.once("open", r));
  ws.send(JSON.stringify({ type: "register", registration: { workerId, workDir: "/tmp", tools: [] } }));
  const beat = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({ type: "heartbeat" })), 1000);
  ws.once("close", () => clearInterval(beat));
  await waitUntil(() => state.registered || state.closed !== null, 10_000, `worker ${workerId} to be answered`);
  return state;
}

describe("a fleet of workers sharing one worker token", { timeout: 60_000 }, () => {
  it("is served whole with the default limits, and heartbeats do not spend the token's rate", async () => {
    // A low rate shows it: 48 heartbeats a second against 30 allowed would be held longer and longer, until the workers time out.
    const s = (server = await ServerProcess.start({ ...config({ requestsPerSecond: 30 }), heartbeatTimeoutMs: 3000 }));
    const fleet = await Promise.all(Array.from({ length: 48 }, (_, i) => link(s, `w${i}`)));
    expect(fleet.filter((l) => l.closed !== null)).toEqual([]);
    await new Promise((r) => setTimeout(r, 10_000));
    const client = await s.client(ADA);
    const listed = await client.workers.list.query();
    expect(listed.filter((w) => w.connected)).toHaveLength(48);
    expect(fleet.filter((l) => l.closed !== null)).toEqual([]);
  });

  it("a worker refused by the link limit says so on its output, naming the setting", async () => {
    const s = (server = await ServerProcess.start(config({ workerLinksPerToken: 1, connectionsPerToken: 1 })));
    expect((await link(s, "w0")).closed).toBeNull();
    const worker = s.worker(FLEET, "w1");
    const said = await worker.err.next(/workerLinksPerToken/);
    expect(said).toMatch(/too many worker links for the token \\"fleet\\": it has 1 open/);
    // Client connections are counted apart: a client still gets in.
    const client = await s.client(ADA);
    expect((await client.workers.list.query()).map((w) => w.id)).toEqual(["w0"]);
  });
});
