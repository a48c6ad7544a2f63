import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { silentLog } from "@gatehouse/log";
import { closeClient, gatehouseCodeOf, type GatehouseClient } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/config.js";
import { startServer, type RunningServer } from "../../src/transport/server.js";

const ADMIN = "codes-admin-token-000001";
const VIEWER = "codes-viewer-token-00001";
const WORKER = "codes-worker-token-00001";
let server: RunningServer;
const clients: GatehouseClient[] = [];
const connect = (token: string) => {
  const client = createNodeClient({ url: server.url, token });
  clients.push(client);
  return client;
};

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-codes-"));
  const config = loadServerConfig(
    undefined,
    {
      port: 0,
      dataDir,
      clientTokens: [
        { name: "ada", token: ADMIN, role: "admin" },
        { name: "vic", token: VIEWER, role: "viewer" },
      ],
      workerTokens: [{ name: "box", token: WORKER, workers: ["w1"] }],
      limits: { requestsPerSecond: 50 },
    },
    {},
  );
  server = await startServer(config, { log: silentLog });
});
afterAll(async () => {
  clients.forEach(closeClient);
  await server.close();
});

/** What a client receives when the call fails: tRPC's code and the Gatehouse code in the error's data. */
const failure = (call: Promise<unknown>) =>
  call.then(
    () => "succeeded",
    (err: { data?: { code?: string } }) => ({ trpc: err.data?.code, gatehouse: gatehouseCodeOf(err) }),
  );

describe("Gatehouse codes in procedure errors", () => {
  it("names what does not exist, what the token's role may not do, and what the server refuses", async () => {
    const ada = connect(ADMIN);
    expect(await failure(ada.session.get.query({ sessionId: "no-such-session" }))).toEqual({ trpc: "NOT_FOUND", gatehouse: "NOT_FOUND" });
    expect(await failure(ada.session.create.mutate({ workerId: "w9", agent: "build" }))).toEqual({ trpc: "NOT_FOUND", gatehouse: "NOT_FOUND" });
    expect(await failure(connect(VIEWER).audit.query.query({}))).toEqual({ trpc: "FORBIDDEN", gatehouse: "ACCESS_DENIED" });

    const box = connect(WORKER);
    const registration = { workerId: "w1", workDir: "/tmp", tools: [] };
    await box.worker.register.mutate(registration);
    const online = box.worker.onToolRequests.subscribe({ workerId: "w1" }, { onData: () => undefined });
    await expect.poll(async () => (await ada.workers.list.query()).find((w) => w.id === "w1")?.connected).toBe(true);
    expect(await failure(box.worker.register.mutate(registration))).toEqual({ trpc: "PRECONDITION_FAILED", gatehouse: "REFUSED" });
    online.unsubscribe();
  });

  it("carries no Gatehouse code on errors that are tRPC's own (bad input)", async () => {
    expect(await failure(connect(ADMIN).session.get.query({ sessionId: "" }))).toEqual({ trpc: "BAD_REQUEST", gatehouse: undefined });
  });
});
