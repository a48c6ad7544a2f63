import path from "node:path";
import { REAL_PATHS_REQUEST, type WorkerMessage, WORKER_LINK_PATH } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { CLIENT_TOKEN, Cluster, Events, waitUntil, WORKER_TOKEN } from "./support/cluster.js";

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

const registration = (workerId: string, workDir: string) => ({
  workerId,
  workDir,
  tools: [{ name: "read_file", description: "reads", tier: "read" as const, inputSchema: {} }],
});

/** Opens the worker link with a token; resolves with the socket, or the HTTP status it was refused with. */
function openLink(url: string, token: string | null): Promise<WebSocket | number> {
  const headers = token === null ? {} : { authorization: `Bearer ${token}` };
  const socket = new WebSocket(url + WORKER_LINK_PATH, { headers });
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve(socket));
    socket.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    socket.once("error", reject);
  });
}

function nextMessage(socket: WebSocket): Promise<Record<string, unknown>> {
  return new Promise((resolve) => socket.once("message", (data) => resolve(JSON.parse(String(data)))));
}

describe("workers", () => {
  it("a worker that speaks only the tRPC procedures registers, receives a call and returns its result", async () => {
    cluster = await Cluster.start();
    const worker = createNodeClient({ url: cluster.url, token: WORKER_TOKEN });
    cluster.clients.push(worker);
    await worker.worker.register.mutate(registration("w2", cluster.workDir));
    const client = cluster.client();
    const info = await client.session.create.mutate({
      workerId: "w2",
      scenario: cluster.scenario("w2", [{ toolCalls: [{ tool: "read_file", args: { path: "a.txt" } }] }, { text: "saw {{lastResult}}" }]),
    });
    const events = new Events(client, { sessionId: info.id });
    await new Promise((r) => setTimeout(r, 100));
    const runs: WorkerMessage[] = [];
    const sub = worker.worker.onToolRequests.subscribe({ workerId: "w2" }, { onData: (m) => runs.push(m as WorkerMessage) });
    await events.next("worker_connected");
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    // Just before the call runs, the gate asks where its paths lead; each leads to itself here.
    await waitUntil(() => runs.length > 0, 5000, "the gate's question about real paths");
    const asked = runs[0]!;
    expect(asked).toMatchObject({ type: "run", origin: "gate", toolName: REAL_PATHS_REQUEST, args: { paths: [path.join(cluster.workDir, "a.txt")] } });
    if (asked.type !== "run") throw new Error("expected a run message");
    const leads = Object.fromEntries((asked.args.paths as string[]).map((p) => [p, { real: p }]));
    await worker.worker.result.mutate({ workerId: "w2", requestId: asked.requestId, ok: true, output: JSON.stringify(leads) });
    await waitUntil(() => runs.length > 1, 5000, "the tool request");
    const run = runs[1]!;
    expect(run).toMatchObject({ type: "run", toolName: "read_file", args: { path: "a.txt" }, guard: { protectedPaths: expect.any(Array) } });
    if (run.type !== "run") throw new Error("expected a run message");
    expect(await worker.worker.result.mutate({ workerId: "w2", requestId: run.requestId, ok: true, output: "from a tRPC worker" })).toEqual({ accepted: true });
    const ended = await events.next("turn_ended");
    expect(ended.reason).toBe("completed");
    expect(events.of("assistant_message").at(-1)!.message).toMatchObject({ text: "saw from a tRPC worker" });
    expect(await worker.worker.result.mutate({ workerId: "w2", requestId: run.requestId, ok: true, output: "again" })).toEqual({ accepted: false });
    sub.unsubscribe();
  });

  it("the worker link refuses a missing, wrong or client token with 401 or 403", async () => {
    cluster = await Cluster.start();
    expect(await openLink(cluster.url, null)).toBe(401);
    expect(await openLink(cluster.url, "wrong-token-0000000000")).toBe(401);
    expect(await openLink(cluster.url, CLIENT_TOKEN)).toBe(403);
  });

  it("the worker link answers malformed messages with an error naming the field and stays open", async () => {
    cluster = await Cluster.start();
    const socket = (await openLink(cluster.url, WORKER_TOKEN)) as WebSocket;
    const say = async (message: unknown) => {
      const answer = nextMessage(socket);
      socket.send(typeof message === "string" ? message : JSON.stringify(message));
      return answer;
    };
    expect(await say("{not json")).toEqual({ type: "error", message: "a message is not valid JSON" });
    expect(await say({ type: "result", requestId: "r", ok: true, output: "x" })).toEqual({ type: "error", message: "register first" });
    expect((await say({ type: "register", registration: { workerId: "w3", workDir: "relative", tools: [] } })).message).toMatch(/registration\.workDir/);
    expect((await say({ type: "launch" })).message).toMatch(/type/);
    expect(await say({ type: "register", registration: registration("w3", cluster.workDir) })).toEqual({ type: "registered", heartbeatTimeoutMs: 3000 });
    expect(await say({ type: "heartbeat", beat: 1234.5 })).toEqual({ type: "heartbeat_ack", beat: 1234.5 });
    expect((await say({ type: "result", ok: true, output: "x" })).message).toMatch(/requestId/);
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
  });
});
