import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events, waitUntil } from "./support/cluster.js";
import { callProcesses, spinUntilStarted } from "./support/process.js";
import { ModelReplay } from "./support/model-replay.js";
import { anthropic } from "./support/wire-formats.js";

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const TEST_SERVER = path.resolve(import.meta.dirname, "support/mcp-test-server.mjs");
const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const demo = () => ({ demo: { command: process.execPath, args: [TEST_SERVER] } });

let cluster: Cluster | undefined;
let httpServer: ChildProcess | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
  httpServer?.kill("SIGKILL");
  httpServer = undefined;
});

const call = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });

/** A scripted session on w1, subscribed, with its first prompt sent. */
async function session(c: Cluster, client: GatehouseClient, steps: unknown[]) {
  const info = await client.session.create.mutate({ workerId: "w1", scenario: c.scenario("mcp", steps) });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  return { id: info.id, events };
}

/** The tier the gate sees for a tool: `read` only while the worker offers it with readOnlyHint. */
const tierOf = async (client: GatehouseClient, tool: string) => (await client.permissions.explain.query({ workerId: "w1", tool, args: {} })).decision.tier;

/** A host stood for by an HTTP server on a 127.0.0.1 port, answering with `text`. */
async function serve(text: string): Promise<http.Server> {
  const server = http.createServer((_req, res) => res.end(text));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return server;
}

const results = (events: Events) => events.of("tool_result").map((r) => [r.toolName, r.ok, r.output]);

describe("MCP servers on a worker, under the gate", { timeout: 60_000 }, () => {
  it("allowed, denied and asked-then-approved calls to a stdio server written with the SDK", async () => {
    cluster = await Cluster.start({ mcpServers: demo, rules: `{"*": "allow", "demo_*": "ask", "demo_echo": "allow", "demo_crash": "deny"}` });
    const client = cluster.client();
    const s = await session(cluster, client, [
      { toolCalls: [call("demo_echo", { text: "hi" }), call("demo_crash"), call("demo_write_note", { name: "a", text: "approved" })] },
      { text: "done" },
    ]);
    const ask = await s.events.next("tool_approval_required", undefined, 20_000);
    expect(ask).toMatchObject({ toolName: "demo_write_note", tier: "exec", arguments: JSON.stringify({ name: "a", text: "approved" }) });
    expect(ask.presentation?.content).toContain("MCP server: demo\ntool: write.note\nannotations: destructiveHint: false\narguments:\n");
    expect(ask.presentation?.content).toContain('"text": "approved"');
    expect(fs.existsSync(path.join(cluster.workDir, "note-a.txt"))).toBe(false);
    await client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId });
    await s.events.next("turn_ended", undefined, 20_000);
    const [echo, crash, note] = results(s.events);
    expect(echo).toEqual(["demo_echo", true, "echo: hi\n[image: image/png, 70 bytes, not shown]\n[resource memo://last (text/plain)]\nlast said: hi"]);
    expect(crash).toEqual(["demo_crash", false, expect.stringMatching(/^ToolDeniedError: /)]);
    expect(note).toEqual(["demo_write_note", true, "wrote note a"]);
    expect(fs.readFileSync(path.join(cluster.workDir, "note-a.txt"), "utf8")).toBe("approved");
    expect(fs.existsSync(path.join(cluster.workDir, "crash-started.txt"))).toBe(false);
    expect(await tierOf(client, "demo_echo")).toBe("read");
  });

  it("a server that dies mid-call fails that call clearly, restarts, and its tools come back; a changed list is followed", async () => {
    cluster = await Cluster.start({ mcpServers: demo, rules: `{"*": "allow"}` });
    const client = cluster.client();
    const s = await session(cluster, client, [
      { toolCalls: [call("demo_crash")] },
      { text: "it crashed" },
      { toolCalls: [call("demo_toggle")] },
      { toolCalls: [call("demo_extra"), call("demo_echo", { text: "gone?" })] },
      { text: "done" },
    ]);
    await s.events.next("turn_ended", undefined, 20_000);
    expect(results(s.events)).toEqual([["demo_crash", false, "MCP server demo stopped while crash was running; it is being restarted"]]);
    expect(fs.existsSync(path.join(cluster.workDir, "crash-started.txt"))).toBe(true);
    await waitUntil(async () => (await tierOf(client, "demo_echo")) === "read", 20_000, "demo_echo offered again");
    expect(cluster.workerLog).toContain("MCP server demo stopped (its connection closed)");
    await client.agent.prompt.mutate({ sessionId: s.id, text: "again" });
    await waitUntil(() => s.events.of("turn_ended").length === 2, 20_000, "the second turn");
    expect(results(s.events).slice(1)).toEqual([
      ["demo_toggle", true, "toggled"],
      ["demo_extra", true, "extra is here"],
      [
        "demo_echo",
        false,
        "ToolDeniedError: this demo_echo call was denied: worker w1 has no tool named demo_echo: only the tools offered to the model can run (an MCP server's tools are offered once the server has started)",
      ],
    ]);
    expect(await tierOf(client, "demo_extra")).toBe("read");
    expect(await tierOf(client, "demo_echo")).toBe("exec");
  });

  it("a stdio server runs in the worker's sandbox; aborting a session cancels its running MCP call", async () => {
    cluster = await Cluster.start({ mcpServers: demo, rules: `{"*": "allow"}`, workerEnv: { WORKER_SECRET: "not-for-servers" } });
    const client = cluster.client();
    // Not under /tmp, which the sandbox replaces with its own.
    const outside = path.join(os.homedir(), `.gatehouse-mcp-probe-${process.pid}`);
    const s = await session(cluster, client, [{ toolCalls: [call("demo_probe", { write: outside }), call("demo_slow")] }, { text: "never" }]);
    expect((await client.workers.list.query())[0]?.sandbox).toMatchObject({ active: true });
    const probe = JSON.parse((await s.events.next("tool_result", (r) => r.toolName === "demo_probe", 20_000)).output) as {
      pid: number;
      env: string[];
      init: string;
      wrote: string;
    };
    // A PID namespace of its own: low numbers, after the network relay that starts it and its threads.
    expect(probe.pid).toBeLessThan(50);
    // bubblewrap's options came on a descriptor: its command line shows no mask layout.
    expect(probe.init).toMatch(/^bwrap --args 3 -- /);
    expect(probe.init).not.toContain("--ro-bind");
    const escaped = fs.existsSync(outside);
    fs.rmSync(outside, { force: true });
    expect([probe.wrote, escaped]).toEqual(["EROFS", false]);
    expect(probe.env).not.toContain("WORKER_SECRET");
    // The SDK's safe list, the directory bubblewrap starts it in, the variables that name its proxy and its own cache.
    const proxy = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"].flatMap((k) => [k, k.toLowerCase()]);
    const known = [...proxy, "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "PWD", "npm_config_cache", "XDG_CACHE_HOME"];
    expect(probe.env.filter((k) => !known.includes(k))).toEqual([]);
    await waitUntil(() => fs.existsSync(path.join(cluster!.workDir, "slow-started.txt")), 20_000, "the slow call to start");
    await client.agent.abort.mutate({ sessionId: s.id });
    await waitUntil(() => fs.existsSync(path.join(cluster!.workDir, "slow-cancelled.txt")), 20_000, "the server to see the cancellation");
  });

  it("a stdio server's connections go through the worker's proxy under the network rules", async () => {
    const hosts = await Promise.all(["allowed", "denied"].map((name) => serve(`${name} host`)));
    const [allowed, denied] = hosts.map((h) => (h.address() as net.AddressInfo).port);
    try {
      cluster = await Cluster.start({ mcpServers: demo, rules: `{"*": "allow", "network": {"127.0.0.1:${allowed}": "allow", "127.0.0.1:${denied}": "deny"}}` });
      const s = await session(cluster, cluster.client(), [
        {
          toolCalls: [
            call("demo_fetch", { url: `http://127.0.0.1:${allowed}/a` }),
            call("demo_fetch", { url: `http://127.0.0.1:${denied}/d` }),
            call("demo_fetch", { url: `http://127.0.0.1:${allowed}/a`, direct: true }),
          ],
        },
        { text: "done" },
      ]);
      await s.events.next("turn_ended", undefined, 20_000);
      expect(results(s.events)).toEqual([
        ["demo_fetch", true, "200 allowed host"],
        ["demo_fetch", true, expect.stringMatching(/^403 gatehouse refused 127\.0\.0\.1:\d+: static rule network "127\.0\.0\.1:\d+": deny/)],
        ["demo_fetch", true, "error ECONNREFUSED"],
      ]);
    } finally {
      for (const h of hosts) h.close();
    }
  });

  it("a Streamable HTTP server, with a header secret taken from the worker's environment", async () => {
    httpServer = spawn(process.execPath, [TEST_SERVER, "--http"], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, MCP_TEST_KEY: "k-123" } });
    const port = await new Promise<number>((resolve) =>
      readline.createInterface({ input: httpServer!.stdout! }).once("line", (l) => resolve(JSON.parse(l).port)),
    );
    cluster = await Cluster.start({
      mcpServers: () => ({ web: { url: `http://127.0.0.1:${port}/mcp`, headers: { "x-test-key": "${MCP_TEST_KEY}" } } }),
      workerEnv: { MCP_TEST_KEY: "k-123" },
      rules: `{"*": "allow", "web_fails": "deny"}`,
    });
    const client = cluster.client();
    const s = await session(cluster, client, [
      { toolCalls: [call("web_echo", { text: "over http" }), call("web_toggle")] },
      { toolCalls: [call("web_extra"), call("web_fails")] },
      { text: "done" },
    ]);
    await s.events.next("turn_ended", undefined, 20_000);
    expect(results(s.events)).toEqual([
      ["web_echo", true, expect.stringContaining("echo: over http")],
      ["web_toggle", true, "toggled"],
      ["web_extra", true, "extra is here"],
      ["web_fails", false, expect.stringMatching(/^ToolDeniedError: /)],
    ]);
  });

  it("the published filesystem server: reads allowed, writes denied, a listing asked and approved", async () => {
    cluster = await Cluster.start({
      mcpServers: (work) => ({ files: { command: process.execPath, args: [FILESYSTEM_SERVER, work] } }),
      files: { "a.txt": "alpha\n" },
      rules: `{"*": "ask", "files_read_text_file": "allow", "files_write_file": "deny"}`,
    });
    const client = cluster.client();
    const work = cluster.workDir;
    const s = await session(cluster, client, [
      {
        toolCalls: [
          call("files_read_text_file", { path: `${work}/a.txt` }),
          call("files_write_file", { path: `${work}/b.txt`, content: "no" }),
          call("files_list_directory", { path: work }),
        ],
      },
      { text: "done" },
    ]);
    const ask = await s.events.next("tool_approval_required", undefined, 20_000);
    expect(ask).toMatchObject({ toolName: "files_list_directory", tier: "read" });
    expect(ask.presentation?.content).toContain("MCP server: files\ntool: list_directory\nannotations: readOnlyHint: true");
    await client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId });
    await s.events.next("turn_ended", undefined, 20_000);
    const [read, write, list] = results(s.events);
    expect(read).toEqual(["files_read_text_file", true, "alpha\n"]);
    expect(write).toEqual(["files_write_file", false, expect.stringMatching(/^ToolDeniedError: /)]);
    expect(fs.existsSync(path.join(work, "b.txt"))).toBe(false);
    expect(list).toEqual(["files_list_directory", true, expect.stringContaining("[FILE] a.txt")]);
  });

  it("gatehouse run --mcp: the embedded worker offers the file's servers; a bad file is one line naming the field", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-run-mcp-"));
    fs.mkdirSync(path.join(dir, "work"));
    fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: demo() }));
    fs.writeFileSync(path.join(dir, "s.json"), JSON.stringify({ steps: [{ toolCalls: [call("demo_echo", { text: "from run" })] }, { text: "done" }] }));
    fs.writeFileSync(path.join(dir, "bad.json"), `{"mcpServers": {"demo": {"command": 1}}}`);
    const gatehouse = (mcp: string) =>
      spawnSync(
        process.execPath,
        [
          BIN,
          "run",
          "--prompt",
          "go",
          "--json",
          "--mode",
          "yolo",
          "--dir",
          path.join(dir, "work"),
          "--data-dir",
          path.join(dir, "data"),
          "--scenario",
          path.join(dir, "s.json"),
          "--mcp",
          mcp,
        ],
        { encoding: "utf8", env: { ...process.env, GATEHOUSE_MODEL: "" } },
      );
    const ok = gatehouse(path.join(dir, "mcp.json"));
    const bad = gatehouse(path.join(dir, "bad.json"));
    fs.rmSync(dir, { recursive: true, force: true });
    expect(ok.status).toBe(0);
    const result = ok.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; toolName?: string; output?: string })
      .find((e) => e.type === "tool_result");
    expect(result).toMatchObject({ toolName: "demo_echo", output: expect.stringContaining("echo: from run") });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^gatehouse: --mcp: .*bad\.json:1:37: mcpServers\.demo\.command: must be a non-empty string\n$/);
  });

  it("a real model is offered MCP tools with their own input schemas and reads their results", async () => {
    const replay = await ModelReplay.start();
    try {
      cluster = await Cluster.start({
        mcpServers: demo,
        rules: `{"*": "allow"}`,
        config: { model: "replay:m", providers: { replay: { api: "anthropic", baseURL: replay.baseURL, apiKeyEnv: "REPLAY_KEY" } } },
        env: { REPLAY_KEY: "k" },
      });
      replay.push(anthropic.stream([], [{ id: "toolu_1", name: "demo_echo", argumentPieces: ['{"text":"model"}'] }]), anthropic.stream(["ok"]));
      const client = cluster.client();
      const info = await client.session.create.mutate({ workerId: "w1" });
      const events = new Events(client, { sessionId: info.id });
      await new Promise((r) => setTimeout(r, 100));
      await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
      await events.next("turn_ended", undefined, 20_000);
      const offered = (replay.requests[0]!.body as { tools: { name: string; input_schema: unknown }[] }).tools.find((t) => t.name === "demo_echo");
      expect(offered?.input_schema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
      expect(JSON.stringify(replay.requests[1]!.body)).toContain("echo: model");
    } finally {
      await replay.close();
    }
  });
});

describe("a sandboxed MCP server's lifetime", { timeout: 180_000 }, () => {
  it("a server that outlives its input, its sandbox and its network relay end with the worker: when it stops, and when it is killed with SIGKILL while bubblewrap is still starting", async () => {
    const marker = `--lifetime-${process.pid}-${Date.now()}`;
    cluster = await Cluster.start({ mcpServers: () => ({ demo: { command: process.execPath, args: [TEST_SERVER, "--linger", marker] } }) });
    await waitUntil(() => callProcesses(marker).some((p) => /socat/.test(p)), 10_000, "the server's relay to start");
    cluster.worker!.kill("SIGTERM");
    await waitUntil(() => callProcesses(marker).length === 0, 8000, "the server, its sandbox and relay to be gone");

    // Each start gives one chance at the milliseconds before bubblewrap ties itself to the worker: several starts, so that the old code was caught every time.
    for (let i = 0; i < 8; i++) {
      const starting = cluster.startWorker(["--mcp", path.join(cluster.root, "mcp.json")]);
      starting.catch(() => undefined);
      spinUntilStarted(marker);
      cluster.worker!.kill("SIGKILL");
      await new Promise((r) => cluster!.worker!.once("exit", r));
    }
    await waitUntil(() => callProcesses(marker).length === 0, 5000, "every server, sandbox and relay to be gone");
  });
});
