import fs from "node:fs";
import path from "node:path";
import { REAL_PATHS_REQUEST, type WorkerMessage } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events, waitUntil, WORKER_TOKEN, type ClusterOptions } from "./support/cluster.js";
import { WorkerLinkRelay } from "./support/worker-link-relay.js";

let cluster: Cluster | undefined;
let relay: WorkerLinkRelay | undefined;
afterEach(async () => {
  await cluster?.stop();
  await relay?.close();
  cluster = relay = undefined;
});

const GIT_CONFIG = "[core]\n\tbare = false\n";

/**
 * A server and a worker whose link passes through a relay: `swap` runs when the server has
 * decided a call of `tool` and sent it, before the worker receives it.
 */
async function start(opts: ClusterOptions, tool: string, swap: (workDir: string) => void) {
  cluster = await Cluster.start(opts);
  await cluster.killWorker();
  const workDir = cluster.workDir;
  const runs: Record<string, unknown>[] = [];
  relay = await WorkerLinkRelay.start(cluster.url, (m) => {
    if (m.type !== "run" || m.toolName !== tool) return;
    runs.push(m);
    if (runs.length === 1) swap(workDir);
  });
  await cluster.startWorker([], {}, relay.url);
  return { cluster, runs };
}

/** A worker of the protocol alone (tRPC), `w2`, that says it checks assumed paths, and a session on it with one read of notes.txt, prompted. */
async function wireWorker(rules: string) {
  cluster = await Cluster.start({ rules });
  const worker = createNodeClient({ url: cluster.url, token: WORKER_TOKEN });
  cluster.clients.push(worker);
  const read = { name: "read_file", description: "reads", tier: "read" as const, inputSchema: {} };
  await worker.worker.register.mutate({ workerId: "w2", workDir: cluster.workDir, tools: [read], checksAssumedPaths: true });
  const runs: WorkerMessage[] = [];
  const sub = worker.worker.onToolRequests.subscribe({ workerId: "w2" }, { onData: (m) => runs.push(m as WorkerMessage) });
  const client = cluster.client();
  const info = await client.session.create.mutate({
    workerId: "w2",
    scenario: cluster.scenario("w2", [{ toolCalls: [{ tool: "read_file", args: { path: "notes.txt" } }] }, { text: "done" }]),
  });
  const events = new Events(client, { sessionId: info.id });
  await waitUntil(async () => (await client.workers.list.query()).some((w) => w.id === "w2" && w.connected), 5000, "the worker to be connected");
  await new Promise((r) => setTimeout(r, 100));
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  return { worker, runs, events, sub };
}

function relink(link: string, target: string) {
  fs.rmSync(link);
  fs.symlinkSync(target, link);
}

describe("a link made between the decision and the run", () => {
  it("an edit the rules allowed, whose file became a link into .git/config after the server decided, is caught by the worker and asks, naming where it leads", async () => {
    const { cluster: c, runs } = await start(
      { rules: `{"*": "ask", "edit_file": "allow", "read_file": "allow"}`, files: { ".git/config": GIT_CONFIG, "settings.ini": GIT_CONFIG } },
      "edit_file",
      (work) => relink(path.join(work, "settings.ini"), ".git/config"),
    );
    const client = c.client();
    const steps = [
      { toolCalls: [{ tool: "edit_file", args: { path: "settings.ini", old_string: "bare = false", new_string: "bare = false\n\tfsmonitor = ./payload" } }] },
      { text: "done" },
    ];
    const info = await client.session.create.mutate({ workerId: "w1", scenario: c.scenario("s", steps) });
    const events = new Events(client, { sessionId: info.id });
    await new Promise((r) => setTimeout(r, 100));
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    const ask = await events.next("tool_approval_required");
    expect(ask.toolName).toBe("edit_file");
    expect(ask.reason).toMatch(/^decided again just before it ran: .*settings\.ini resolves to .*\/\.git\/config: /);
    // The run the rules let through carried what the decision assumed: the file as itself.
    expect(runs[0]).toMatchObject({ assumed: { [path.join(c.workDir, "settings.ini")]: { real: path.join(c.workDir, "settings.ini") } } });
    await client.tool.deny.mutate({ sessionId: info.id, approvalId: ask.approvalId });
    await events.next("turn_ended");
    expect(fs.readFileSync(path.join(c.workDir, ".git/config"), "utf8")).toBe(GIT_CONFIG);
    expect(events.of("tool_result").map((r) => [r.toolName, r.outcome])).toEqual([["edit_file", "rejected"]]);
  });

  it("a read whose file became a link to a file that asks, approved there, is sent again carrying where it leads and starts once; the worker's own check of a link still holds", async () => {
    const { cluster: c, runs } = await start(
      { rules: `{"*": "ask", "read_file": {"*": "allow", "private/**": "ask"}}`, files: { "private/key.txt": "the private key", "notes.txt": "notes" } },
      "read_file",
      (work) => relink(path.join(work, "notes.txt"), "private/key.txt"),
    );
    const client = c.client();
    const info = await client.session.create.mutate({
      workerId: "w1",
      scenario: c.scenario("s", [{ toolCalls: [{ tool: "read_file", args: { path: "notes.txt" } }] }, { text: "done" }]),
    });
    const events = new Events(client, { sessionId: info.id });
    await new Promise((r) => setTimeout(r, 100));
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    const ask = await events.next("tool_approval_required");
    expect(ask.reason).toMatch(/^decided again just before it ran: notes\.txt resolves to .*\/private\/key\.txt/);
    await client.tool.approve.mutate({ sessionId: info.id, approvalId: ask.approvalId });
    await events.next("turn_ended");
    // A person approves the name they saw; an ask through a link is the worker's to refuse (docs/security.md).
    expect(events.of("tool_result")).toMatchObject([
      { toolName: "read_file", outcome: "failed", output: expect.stringMatching(/^refused read_file notes\.txt: notes\.txt leads to .*private\/key\.txt/) },
    ]);
    // Sent twice (the run the worker refused, then the approved one, carrying where the path leads), started once.
    const notes = path.join(c.workDir, "notes.txt");
    expect(runs.map((r) => r.assumed)).toEqual([{ [notes]: { real: notes } }, { [notes]: { real: path.join(c.workDir, "private/key.txt") } }]);
    expect(events.of("tool_call_started")).toHaveLength(1);
  });

  it("a read the rules allowed, whose file became a link to .env after the server decided, never returns what the link leads to", async () => {
    const { cluster: c } = await start(
      { rules: `{"*": "ask", "read_file": {"*": "allow", "*.env": "deny"}}`, files: { ".env": "API_TOKEN=the-secret-token", "notes.txt": "notes" } },
      "read_file",
      (work) => relink(path.join(work, "notes.txt"), ".env"),
    );
    const client = c.client();
    const info = await client.session.create.mutate({
      workerId: "w1",
      scenario: c.scenario("s", [{ toolCalls: [{ tool: "read_file", args: { path: "notes.txt" } }] }, { text: "done" }]),
    });
    const events = new Events(client, { sessionId: info.id });
    await new Promise((r) => setTimeout(r, 100));
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    await events.next("turn_ended");
    const [read] = events.of("tool_result");
    expect(read).toMatchObject({ toolName: "read_file", outcome: "denied" });
    expect(read!.output).toMatch(/decided again just before it ran: notes\.txt resolves to .*\/\.env/);
    expect(read!.output).not.toContain("the-secret-token");
  });

  it("on the wire: a worker that checks assumed paths gets the call with them and no question first; its answer that one moved is decided on, and a denial on its own answer", async () => {
    const { worker, runs, events, sub } = await wireWorker(`{"*": "ask", "read_file": {"*": "allow", "*.env": "deny"}}`);
    await waitUntil(() => runs.length > 0, 5000, "the tool request");
    const notes = path.join(cluster!.workDir, "notes.txt");
    const run = runs[0]!;
    expect(run).toMatchObject({ type: "run", toolName: "read_file", assumed: { [notes]: { real: notes } } });
    if (run.type !== "run") throw new Error("expected a run message");
    const moved = { [notes]: { real: path.join(cluster!.workDir, ".env") } };
    await worker.worker.result.mutate({ workerId: "w2", requestId: run.requestId, ok: false, output: "not run", moved });
    // Decided on that, the call would be denied: a decision that does not let it run is made on the worker's own answer.
    await waitUntil(() => runs.length > 1, 5000, "the question of where the path leads");
    const asked = runs[1]!;
    expect(asked).toMatchObject({ type: "run", origin: "gate", toolName: REAL_PATHS_REQUEST, args: { paths: [notes] } });
    if (asked.type !== "run") throw new Error("expected a run message");
    await worker.worker.result.mutate({ workerId: "w2", requestId: asked.requestId, ok: true, output: JSON.stringify(moved) });
    await events.next("turn_ended");
    expect(events.of("tool_result")).toMatchObject([
      { toolName: "read_file", outcome: "denied", output: expect.stringMatching(/decided again just before it ran: notes\.txt resolves to .*\/\.env/) },
    ]);
    expect(runs).toHaveLength(2);
    sub.unsubscribe();
  });

  it("on the wire: a call whose paths keep moving between its decision and its run is given up unrun after 4 tries", async () => {
    const { worker, runs, events, sub } = await wireWorker(`{"*": "ask", "read_file": "allow"}`);
    const notes = path.join(cluster!.workDir, "notes.txt");
    for (let i = 1; i <= 4; i++) {
      await waitUntil(() => runs.length >= i, 5000, `run ${i}`);
      const run = runs[i - 1]!;
      if (run.type !== "run") throw new Error("expected a run message");
      expect(run.origin).toBeUndefined();
      const moved = { [notes]: { real: path.join(cluster!.workDir, `elsewhere-${i}.txt`) } };
      await worker.worker.result.mutate({ workerId: "w2", requestId: run.requestId, ok: false, output: "not run", moved });
    }
    await events.next("turn_ended");
    expect(events.of("tool_result")).toMatchObject([
      { toolName: "read_file", outcome: "failed", output: expect.stringMatching(/changed 4 times between its decision and its run; it did not run/) },
    ]);
    expect(runs).toHaveLength(4);
    expect(events.of("tool_call_started")).toHaveLength(1);
    sub.unsubscribe();
  });
});
