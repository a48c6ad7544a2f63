import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { silentLog } from "@gatehouse/log";
import { closeClient } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { loadServerConfig } from "../../src/config/config.js";
import { startServer, type RunningServer } from "../../src/transport/server.js";

const TOKEN = "limits-token-000000000001";
let server: RunningServer;

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-limits-"));
  const config = loadServerConfig(
    undefined,
    {
      port: 0,
      dataDir,
      clientTokens: [{ name: "ada", token: TOKEN, role: "admin" }],
      limits: { connectionsPerToken: 1, requestsPerSecond: 3, authTimeoutMs: 300 },
    },
    {},
  );
  server = await startServer(config, { log: silentLog });
});
let stopped = false;
afterAll(() => (stopped ? undefined : server.close()));

describe("limits on a running server", () => {
  it("closes a token's connection beyond the most it may hold, and refuses requests beyond its rate", async () => {
    const first = createNodeClient({ url: server.url, token: TOKEN });
    await first.session.list.query();
    let code: number | undefined;
    const second = createNodeClient({ url: server.url, token: TOKEN, onClose: (cause) => (code ??= cause?.code), retryDelayMs: () => 60_000 });
    void second.session.list.query().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    expect(code).toBe(1008);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        first.session.list.query().then(
          () => "ok",
          (e: { data?: { code?: string } }) => e.data?.code,
        ),
      ),
    );
    expect(answers.filter((a) => a === "TOO_MANY_REQUESTS").length).toBeGreaterThan(0);
    expect(answers.filter((a) => a === "ok").length).toBeGreaterThan(0);
    await closeClient(first);
    await closeClient(second);
  });

  it("closes a WebSocket that shows no valid token in time, and refuses a large HTTP body without one", async () => {
    const silent = new WebSocket(`${server.url}?connectionParams=1`);
    const code = await new Promise<number>((r) => silent.once("close", (c) => r(c)));
    expect(code).toBe(4001);
    const http = server.url.replace(/^ws/, "http");
    const big = JSON.stringify({ sessionId: "s", text: "x".repeat(100_000) });
    const refused = await fetch(`${http}/agent.prompt`, { method: "POST", headers: { "content-type": "application/json" }, body: big });
    expect(refused.status).toBe(413);
    const small = await fetch(`${http}/session.list`);
    expect(small.status).toBe(401);
  });

  it("stops while a stream of server-sent events is open, ending it", async () => {
    const http = server.url.replace(/^ws/, "http");
    const input = encodeURIComponent(JSON.stringify({ lastEventId: null }));
    const res = await fetch(`${http}/agent.onEvents?input=${input}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: connected");
    stopped = true;
    await server.close();
    await expect(reader.read()).rejects.toThrow();
  });
});

describe("limits reloaded", () => {
  it("frame limits apply to connections opened after a reload", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-limits-"));
    const config = loadServerConfig(
      undefined,
      { port: 0, dataDir, clientTokens: [{ name: "ada", token: TOKEN, role: "admin" }], limits: { clientFrameBytes: 1024 * 1024, authTimeoutMs: 1000 } },
      {},
    );
    const running = await startServer(config, { log: silentLog });
    const http = running.url.replace(/^ws/, "http");
    const post = async () =>
      (
        await fetch(`${http}/agent.prompt`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ sessionId: "s", text: "x".repeat(2_000_000) }),
        })
      ).status;
    const preAuthFrame = () => {
      const ws = new WebSocket(`${running.url}?connectionParams=1`);
      ws.once("open", () => ws.send("x".repeat(20_000)));
      return new Promise<number>((r) => ws.once("close", (c) => r(c)));
    };
    expect(await post()).toBe(413);
    expect(await preAuthFrame()).toBe(1009);
    running.reloadTokens({ ...config, limits: { ...config.limits, clientFrameBytes: 4 * 1024 * 1024, preAuthFrameBytes: 32 * 1024 } });
    expect(await post()).not.toBe(413);
    expect(await preAuthFrame()).not.toBe(1009);
    await running.close();
  });
});
