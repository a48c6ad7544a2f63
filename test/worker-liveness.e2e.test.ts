import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events, waitUntil } from "./support/cluster.js";

// A short heartbeat time-out keeps these tests a few seconds long: the worker beats every 375 ms and gives the link up after 1,125 ms without an acknowledgement.
const HEARTBEAT_TIMEOUT_MS = 1500;

/** What the test started, stopped after it. */
let running: { cluster?: Cluster; relay?: Relay } = {};
afterEach(async () => {
  running.relay?.close();
  await running.cluster?.stop();
  running = {};
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

async function start(command: string): Promise<Cluster> {
  const cluster = (running.cluster = await Cluster.start({
    rules: `{ "*": "allow" }`,
    config: { heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS },
    workerFlags: ["--sandbox", "off"],
    workerEnv: { GATEHOUSE_LOG_LEVEL: "debug" },
  }));
  cluster.scenario("steps", [{ text: "W", toolCalls: [shell(command)] }, { text: "Told: {{lastResult}}" }]);
  return cluster;
}

async function session(c: Cluster) {
  const client = c.client();
  const s = await client.session.create.mutate({ workerId: "w1", scenario: path.join(c.root, "steps.json") });
  const events = new Events(client, { sessionId: s.id });
  await events.started;
  return { client, id: s.id, events };
}

async function connected(client: GatehouseClient): Promise<boolean> {
  return (await client.workers.list.query()).some((w) => w.id === "w1" && w.connected);
}

interface Relay {
  port: number;
  /** The partition: every open connection stops carrying anything, both ways. Later connections pass. */
  blackHole(): void;
  close(): void;
}

/** A TCP relay on loopback to `target` whose open connections can be black-holed: nothing forwarded, nothing closed (no FIN, no RST). */
async function startRelay(target: number): Promise<Relay> {
  const open = new Set<{ a: net.Socket; b: net.Socket; held: boolean }>();
  const server = net.createServer((a) => {
    const pair = { a, b: net.connect(target, "127.0.0.1"), held: false };
    open.add(pair);
    a.on("data", (d) => pair.held || pair.b.write(d));
    pair.b.on("data", (d) => pair.held || a.write(d));
    for (const [one, other] of [
      [a, pair.b],
      [pair.b, a],
    ]) {
      one!.on("error", () => pair.held || other!.destroy());
      one!.on("close", () => pair.held || other!.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    blackHole: () => open.forEach((pair) => (pair.held = true)),
    close: () => {
      for (const { a, b } of open) [a, b].forEach((s) => s.destroy());
      server.close();
    },
  };
}

describe("a worker the server may have given up on", { timeout: 60_000 }, () => {
  it("never runs a call that waited in its socket while it was frozen, and reconnects", async () => {
    const c = await start("echo ran >> effects.txt");
    const { client, id, events } = await session(c);
    c.worker!.kill("SIGSTOP");
    await client.agent.prompt.mutate({ sessionId: id, text: "go" });
    const result = await events.next("tool_result", () => true, 10_000);
    expect(result.output).toContain("no heartbeat");
    await events.next("turn_ended", () => true, 10_000);
    c.worker!.kill("SIGCONT");
    await waitUntil(() => connected(client), 10_000, "the worker to reconnect");
    expect(c.workerLog).not.toContain("running a tool call");
    expect(fs.existsSync(path.join(c.workDir, "effects.txt"))).toBe(false);
    expect(c.workerLog).toContain("giving up the link to the server");
  });

  it("behind a partition, kills its running call and reconnects", async () => {
    const c = await start("sleep 3; echo ran >> effects.txt");
    await c.killWorker();
    const relay = (running.relay = await startRelay(c.port));
    await c.startWorker(["--sandbox", "off"], { GATEHOUSE_LOG_LEVEL: "debug" }, `ws://127.0.0.1:${relay.port}`);
    const { client, id, events } = await session(c);
    await client.agent.prompt.mutate({ sessionId: id, text: "go" });
    await events.next("tool_call_started");
    const started = Date.now();
    relay.blackHole();
    const result = await events.next("tool_result", () => true, 10_000);
    expect(result.output).toContain("no heartbeat");
    // The command would have written its line 3 s after it started.
    await new Promise((r) => setTimeout(r, Math.max(0, started + 4000 - Date.now())));
    expect(fs.existsSync(path.join(c.workDir, "effects.txt"))).toBe(false);
    await waitUntil(() => connected(client), 10_000, "the worker to reconnect");
    expect(c.workerLog).toContain("the server acknowledged no heartbeat");
    expect(c.workerLog).toContain("killing the running calls");
  });
});
