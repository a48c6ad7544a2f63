import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { helloScratch } from "./support/hello-mcp-server.js";
import { Cluster, CLIENT_TOKEN, Events, waitUntil } from "./support/cluster.js";
import { Tmux } from "./support/tmux.js";

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const TEST_SERVER = path.resolve(import.meta.dirname, "support/mcp-test-server.mjs");

/**
 * A stand-in for npx, as it behaves offline: the package (a folder) is copied into the npm cache
 * (npm_config_cache, or ~/.npm as npm has it) and its server run from there. A cache it cannot
 * write fails as npm does, on stderr, with the path.
 */
const FAKE_NPX = `
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
const spec = process.argv.at(-1);
const cache = process.env.npm_config_cache || path.join(os.homedir(), ".npm");
const installed = path.join(cache, "_npx", path.basename(spec));
try {
  fs.cpSync(spec, installed, { recursive: true });
} catch (err) {
  console.error("npm error code " + err.code);
  console.error("npm error path " + installed);
  process.exit(1);
}
await import(pathToFileURL(path.join(installed, "server.mjs")).href);
`;

/** npx that must fetch its package: it asks the proxy the sandbox names for the registry, and says what came back. */
const FETCHING_NPX = `
import http from "node:http";
const proxy = new URL(process.env.HTTPS_PROXY || "http://127.0.0.1:9");
http
  .request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: "registry.npmjs.org:443" })
  .on("connect", (res) => { console.error("npm error network: the proxy answered " + res.statusCode); process.exit(1); })
  .on("error", (err) => { console.error("npm error network: " + err.code); process.exit(1); })
  .end();
`;

/** npx that fetches through the proxy from a registry on a loopback port (its last argument), then runs the package. */
const LOOPBACK_NPX = `
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
const [pkg, port] = process.argv.slice(-2);
const proxy = new URL(process.env.HTTP_PROXY || "http://127.0.0.1:9");
http
  .request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: "127.0.0.1:" + port })
  .on("connect", async (res, socket) => {
    socket.destroy();
    if (res.statusCode !== 200) { console.error("npm error network: the proxy answered " + res.statusCode); process.exit(1); }
    await import(pathToFileURL(path.join(pkg, "server.mjs")).href);
  })
  .on("error", (err) => { console.error("npm error network: " + err.code); process.exit(1); })
  .end();
`;

const BROKEN = `#!/bin/sh
echo "broken-mcp: cannot read its settings in /etc/broken-mcp.conf" >&2
exit 3
`;

let cluster: Cluster | undefined;
let tmux: Tmux | undefined;
let scratch: string;
afterEach(async () => {
  tmux?.kill();
  tmux = undefined;
  await cluster?.stop();
  cluster = undefined;
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** A scratch folder under the system's /tmp, which the sandbox replaces: a bin folder with the programs given, a package folder, a cache. */
function scratchWith(programs: Record<string, string>): { bin: string; pkg: string; cache: string } {
  const made = helloScratch("gh-mcp-launch-");
  const { bin, pkg } = made;
  scratch = made.scratch;
  for (const [name, text] of Object.entries(programs)) {
    const body = text.startsWith("#!") ? text : `#!${process.execPath}\n${text}`;
    fs.writeFileSync(path.join(bin, name), body, { mode: 0o755 });
  }
  return { bin, pkg, cache: path.join(scratch, "cache") };
}

/** The messages of the worker's log lines (JSON when its output is not a terminal). */
function logMessages(log: string): string[] {
  return log.split("\n").flatMap((line) => {
    try {
      return [(JSON.parse(line) as { msg: string }).msg];
    } catch {
      return [];
    }
  });
}

/** `gatehouse run` on the cluster's worker, to its end. */
function run(c: Cluster, scenario: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "run", "--prompt", "go", "--server", c.url, "--worker", "w1", "--scenario", scenario], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, GATEHOUSE_CLIENT_TOKEN: CLIENT_TOKEN },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

describe("MCP servers started the documented ways, under the default sandbox", { timeout: 90_000 }, () => {
  it("npx and node start their servers: npx gets a cache of its own, a script under /tmp is seen", async () => {
    const { bin, pkg, cache } = scratchWith({ npx: FAKE_NPX });
    cluster = await Cluster.start({
      rules: `{"*": "allow"}`,
      workerEnv: { PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: cache },
      mcpServers: () => ({
        "by-npx": { command: "npx", args: ["-y", pkg] },
        "by-node": { command: process.execPath, args: [path.join(pkg, "server.mjs")] },
      }),
    });
    const client = cluster.client();
    const [worker] = await client.workers.list.query();
    expect(worker?.sandbox).toMatchObject({ active: true });
    expect(worker?.mcpServers).toEqual([
      { name: "by-npx", running: true, problem: null },
      { name: "by-node", running: true, problem: null },
    ]);
    const info = await client.session.create.mutate({
      workerId: "w1",
      scenario: cluster.scenario("hello", [
        {
          toolCalls: [
            { tool: "by-npx_hello", args: {} },
            { tool: "by-node_hello", args: {} },
          ],
        },
        { text: "done" },
      ]),
    });
    const events = new Events(client, { sessionId: info.id });
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    await events.next("turn_ended", undefined, 30_000);
    const installed = path.join(cache, "gatehouse/mcp/by-npx/npm/_npx/local-mcp/server.mjs");
    expect(events.of("tool_result").map((r) => [r.toolName, r.ok, r.output])).toEqual([
      ["by-npx_hello", true, `hello from ${installed}`],
      ["by-node_hello", true, `hello from ${path.join(pkg, "server.mjs")}`],
    ]);
    // The cache is the server's own, on the host, kept for its next start.
    expect(fs.existsSync(installed)).toBe(true);
  });

  it("npx runs the package it fetches, never the work directory's own copy of it, which the agent may have changed", async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gh-mcp-npx-"));
    /** The project's copy of the package: what the agent could rewrite with a file tool, never asked. */
    const projectCopy = (work: string) => {
      const pkg = path.join(work, "node_modules", "demo-mcp");
      fs.mkdirSync(path.join(work, "node_modules", ".bin"), { recursive: true });
      fs.mkdirSync(pkg);
      fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "demo-mcp", version: "1.0.0", bin: { "demo-mcp": "server.sh" } }));
      fs.writeFileSync(path.join(pkg, "server.sh"), '#!/bin/sh\ntouch "$PWD/ran-the-project-copy"\n', { mode: 0o755 });
      fs.symlinkSync("../demo-mcp/server.sh", path.join(work, "node_modules", ".bin", "demo-mcp"));
      fs.writeFileSync(path.join(work, "package.json"), JSON.stringify({ name: "p", version: "1.0.0", devDependencies: { "demo-mcp": "1.0.0" } }));
    };
    cluster = await Cluster.start({
      rules: `{"*": "allow"}`,
      mcpServers: (work) => (
        projectCopy(work),
        {
          demo: { command: "npx", args: ["--offline", "--no", "demo-mcp"] },
          "demo-exec": { command: "npm", args: ["exec", "--offline", "--yes=false", "demo-mcp"] },
        }
      ),
    });
    const [worker] = await cluster.client().workers.list.query();
    expect(worker?.mcpServers).toMatchObject([
      { name: "demo", running: false },
      { name: "demo-exec", running: false },
    ]);
    expect(fs.existsSync(path.join(cluster.workDir, "ran-the-project-copy"))).toBe(false);
  });

  it("a server that cannot start says why: in the worker's output, in the worker list clients read, and on run's stderr", async () => {
    const { bin, cache } = scratchWith({ "broken-mcp": BROKEN, npx: FETCHING_NPX });
    cluster = await Cluster.start({
      rules: `{"*": "allow"}`,
      workerEnv: { PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: cache },
      mcpServers: () => ({ broken: { command: "broken-mcp", args: [] }, fetching: { command: "npx", args: ["-y", "@example/server"] } }),
    });
    const client = cluster.client();
    const said = logMessages(cluster.workerLog);
    expect(said).toContainEqual(
      expect.stringMatching(
        /^MCP server broken could not start: .*\nits last words on stderr:\n {2}broken-mcp: cannot read its settings in \/etc\/broken-mcp\.conf\n\(trying again in/,
      ),
    );
    expect(said).toContainEqual(expect.stringContaining("refused its connections to registry.npmjs.org:443: the worker has no rules from its server yet"));
    const [worker] = await client.workers.list.query();
    expect(worker?.mcpServers.map((m) => [m.name, m.running])).toEqual([
      ["broken", false],
      ["fetching", false],
    ]);
    expect(worker?.mcpServers[0]?.problem).toContain("broken-mcp: cannot read its settings");
    expect(worker?.mcpServers[1]?.problem).toContain("the sandbox refused its connections to registry.npmjs.org:443");
    expect(worker?.mcpServers[1]?.problem).toContain("npm error network: the proxy answered 403");
    const r = await run(cluster, cluster.scenario("nothing", [{ text: "done" }]));
    expect(r.stderr).toContain("error: MCP server broken could not start");
    expect(r.stderr).toContain("broken-mcp: cannot read its settings");
    expect(r.stdout).not.toContain("broken-mcp");
  });

  it("a session hears when a server stops and when it runs again", async () => {
    scratchWith({});
    cluster = await Cluster.start({ rules: `{"*": "allow"}`, mcpServers: () => ({ demo: { command: process.execPath, args: [TEST_SERVER] } }) });
    const client = cluster.client();
    const info = await client.session.create.mutate({
      workerId: "w1",
      scenario: cluster.scenario("crash", [{ toolCalls: [{ tool: "demo_crash", args: {} }] }, { text: "done" }]),
    });
    const events = new Events(client, { sessionId: info.id });
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    await waitUntil(() => events.of("mcp_server").length === 2, 30_000, "the server to stop and come back");
    expect(events.of("mcp_server").map((e) => [e.server, e.problem?.split("\n")[0] ?? null])).toEqual([
      ["demo", "stopped (its connection closed); its tools are withdrawn until it is back"],
      ["demo", null],
    ]);
  });

  it("the terminal of ./gatehouse shows a server that could not start, with its own error", async () => {
    const { bin } = scratchWith({ "broken-mcp": BROKEN });
    fs.mkdirSync(path.join(scratch, "work"));
    fs.writeFileSync(path.join(scratch, "mcp.json"), JSON.stringify({ mcpServers: { broken: { command: path.join(bin, "broken-mcp") } } }));
    fs.writeFileSync(path.join(scratch, "scenario.json"), JSON.stringify({ name: "ready", steps: [{ text: "Ready." }] }));
    const args = `--dir ${scratch}/work --data-dir ${scratch}/data --scenario ${scratch}/scenario.json --mcp ${scratch}/mcp.json`;
    tmux = new Tmux(`XDG_CACHE_HOME=${scratch}/cache node ${BIN} ${args}`, 120, 40);
    const screen = await tmux.waitFor(/error: MCP server broken on worker \S+ could not start/, "the server's failure");
    expect(screen).toMatch(/its last words on stderr:\n +broken-mcp: cannot read its settings in \/etc\/broken-mcp\.conf/);
  });

  it("a server refused the network for want of rules is tried again as soon as the first call brings them", async () => {
    const { bin, pkg, cache } = scratchWith({ npx: LOOPBACK_NPX });
    const registry = http.createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
    const port = (registry.address() as net.AddressInfo).port;
    try {
      cluster = await Cluster.start({
        rules: `{"*": "allow", "network": {"127.0.0.1:${port}": "allow"}}`,
        workerEnv: { PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: cache },
        mcpServers: () => ({ fetching: { command: "npx", args: ["-y", pkg, String(port)] } }),
      });
      // Several tries have failed; the next one by backoff alone is seconds away.
      await waitUntil(() => cluster!.workerLog.includes("trying again in 8 s"), 30_000, "the fourth failed try");
      const client = cluster.client();
      expect((await client.workers.list.query())[0]?.mcpServers[0]?.problem).toContain("the worker has no rules from its server yet");
      const info = await client.session.create.mutate({
        workerId: "w1",
        scenario: cluster.scenario("one", [{ toolCalls: [{ tool: "glob", args: { pattern: "*" } }] }, { text: "done" }]),
      });
      const asked = Date.now();
      await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
      await waitUntil(async () => (await client.workers.list.query())[0]?.mcpServers[0]?.running === true, 20_000, "the server to run");
      expect(Date.now() - asked).toBeLessThan(6_000);
    } finally {
      registry.close();
    }
  });
});
