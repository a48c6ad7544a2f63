import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { Events, waitUntil } from "./support/cluster.js";
import { BIN, Output, ServerProcess } from "./support/server-process.js";

const W1 = "worker-one-token-00000001";
const W2 = "worker-two-token-00000002";
const ADMIN = "admin-token-0000000000001";
const APPROVER = "approver-token-000000001";
const VIEWER = "viewer-token-00000000001";

const RULES = `{ "*": "ask", "read_file": "allow" }`;

const config = (extra: Record<string, unknown> = {}) => ({
  tls: "self-signed",
  workerTokens: [
    { name: "box-one", token: W1, workers: ["w1"] },
    { name: "box-two", token: W2, workers: ["w2"] },
  ],
  clientTokens: [
    { name: "root", token: ADMIN, role: "admin" },
    { name: "ada", token: APPROVER, role: "approver", workers: ["w1"] },
    { name: "wall", token: VIEWER, role: "viewer" },
  ],
  ...extra,
});

let server: ServerProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function startWithWorkers(): Promise<ServerProcess> {
  const s = (server = await ServerProcess.start(config(), { "data/workers/w1/permissions.jsonc": RULES, "data/workers/w2/permissions.jsonc": RULES }));
  for (const [token, id] of [
    [W1, "w1"],
    [W2, "w2"],
  ] as const)
    await s.worker(token, id).err.next(/connected to wss:/);
  return s;
}

function askingScenario(s: ServerProcess, name: string): string {
  const file = path.join(s.root, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ name, steps: [{ toolCalls: [{ tool: "shell_exec", args: { command: "echo hello" } }] }, { text: "done" }] }));
  return file;
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "no error",
    (err: Error & { data?: { code?: string } }) => `${err.data?.code}: ${err.message}`,
  );

describe("TLS with a self-signed certificate", () => {
  it("a worker and a client pin the server on first use; a changed certificate is refused", async () => {
    const s = (server = await ServerProcess.start(config()));
    expect(s.url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+$/);
    expect(s.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const worker = s.worker(W1, "w1");
    expect(await worker.err.next(/trusting .* on first use/)).toContain(s.fingerprint!);
    await worker.err.next(/connected to wss:/);
    expect(fs.readFileSync(s.knownServers, "utf8")).toBe(`${s.url.slice("wss://".length)} ${s.fingerprint}\n`);

    const run = s.spawnCli(["run", "--server", s.url, "--token", ADMIN, "--worker", "w1", "--prompt", "hello"]);
    expect(await run.exit).toBe(0);
    expect(run.out.lines.join("\n")).toMatch(/scripted model: no model is configured.* --model PROVIDER:MODEL .* --scenario FILE /);

    // The server comes back on the same port with a new certificate: nobody sends it a token.
    const port = Number(new URL(s.url).port);
    await s.stopServer();
    fs.rmSync(path.join(s.dataDir, "tls"), { recursive: true });
    s.writeConfig({ ...config(), port, dataDir: s.dataDir, heartbeatTimeoutMs: 3000 });
    await s.launch();
    expect(s.fingerprint).not.toBeNull();
    const again = s.spawnCli(["run", "--server", s.url, "--token", ADMIN, "--worker", "w1", "--prompt", "hello"]);
    expect(await again.exit).toBe(1);
    expect(again.err.lines.join("\n")).toMatch(/the certificate of 127\.0\.0\.1:\d+ has changed: .*known_servers:1 pins .* now presents .*Not connecting/);
    expect(await worker.err.next(/not connecting to wss:.*has changed/)).toContain(s.fingerprint!);
    await expect(s.client(ADMIN)).rejects.toThrow(/has changed/);
    expect(s.log.lines.some((l) => /worker registered/.test(l))).toBe(false);
  });
});

describe("identity and roles", () => {
  it("binds worker tokens to their ids, refuses a second connection for an online worker, and keeps each token to its role", async () => {
    const s = await startWithWorkers();
    expect(await s.worker(W1, "w9").err.next(/the server says: the token \\"box-one\\" may not register worker w9/)).toBeTruthy();
    expect(await s.worker(W1, "w1").err.next(/the server says: worker w1 is already connected/)).toBeTruthy();
    await s.log.next(/"msg":"worker refused".*w9/);

    const admin = await s.client(ADMIN);
    const approver = await s.client(APPROVER);
    const viewer = await s.client(VIEWER);
    const onW2 = await admin.session.create.mutate({ workerId: "w2", scenario: askingScenario(s, "w2") });
    const adminEvents = new Events(admin, { sessionId: onW2.id });
    const approverAll = new Events(approver, {});
    const viewerEvents = new Events(viewer, { sessionId: onW2.id });
    await admin.agent.prompt.mutate({ sessionId: onW2.id, text: "go" });
    const ask = await adminEvents.next("tool_approval_required");
    await viewerEvents.next("tool_approval_required");

    // The approver of w1 sees nothing of w2's session and cannot act on it.
    expect((await approver.session.list.query()).map((x) => x.id)).not.toContain(onW2.id);
    expect(await refusal(approver.session.get.query({ sessionId: onW2.id }))).toMatch(
      /^FORBIDDEN: the token "ada" \(approver\) may not watch sessions on worker w2/,
    );
    expect(await refusal(approver.tool.approve.mutate({ sessionId: onW2.id, approvalId: ask.approvalId }))).toMatch(
      /^FORBIDDEN: .*may not answer approvals on worker w2/,
    );
    expect(await refusal(approver.session.create.mutate({ workerId: "w2" }))).toMatch(/^FORBIDDEN/);
    expect(await refusal(approver.session.shell.mutate({ sessionId: onW2.id, command: "id" }))).toMatch(/^FORBIDDEN/);
    expect(await refusal(approver.permissions.get.query({ workerId: "w1" }))).toMatch(/^FORBIDDEN/);
    // The viewer watches but answers nothing.
    expect(await refusal(viewer.tool.approve.mutate({ sessionId: onW2.id, approvalId: ask.approvalId }))).toMatch(
      /^FORBIDDEN: the token "wall" \(viewer\) may not answer approvals/,
    );
    expect(await refusal(viewer.tool.deny.mutate({ sessionId: onW2.id, approvalId: ask.approvalId }))).toMatch(/^FORBIDDEN/);
    expect(await refusal(viewer.agent.prompt.mutate({ sessionId: onW2.id, text: "x" }))).toMatch(/^FORBIDDEN/);

    // The approver's own worker works for it, and its all-sessions stream carries only that.
    const onW1 = await approver.session.create.mutate({ workerId: "w1", scenario: askingScenario(s, "w1") });
    await approver.agent.prompt.mutate({ sessionId: onW1.id, text: "go" });
    const own = await approverAll.next("tool_approval_required", (e) => e.sessionId === onW1.id);
    expect(await approver.tool.approve.mutate({ sessionId: onW1.id, approvalId: own.approvalId })).toEqual({ applied: true });
    expect(await admin.tool.approve.mutate({ sessionId: onW2.id, approvalId: ask.approvalId })).toEqual({ applied: true });
    expect((await adminEvents.next("tool_approval_resolved")).by).toBe("root");
    await adminEvents.next("turn_ended");
    expect(approverAll.list.every((e) => e.event.sessionId === onW1.id)).toBe(true);
    expect(approverAll.list.length).toBeGreaterThan(0);
  });

  it("a token removed from the config loses its open connection and is refused after", async () => {
    const s = (server = await ServerProcess.start(config()));
    let closedWith: number | undefined;
    const viewer = await s.client(VIEWER, (cause) => (closedWith ??= cause?.code));
    const admin = await s.client(ADMIN);
    expect(await viewer.session.list.query()).toEqual([]);
    const cfg = config();
    s.writeConfig({
      ...cfg,
      port: Number(new URL(s.url).port),
      dataDir: s.dataDir,
      clientTokens: (cfg.clientTokens as { name: string }[]).filter((t) => t.name !== "wall"),
    });
    await waitUntil(() => closedWith !== undefined, 5000, "the viewer's connection to close");
    expect(closedWith).toBe(4001);
    await s.log.next(/"msg":"tokens reloaded".*"connectionsClosed":1/);
    expect(await refusal(viewer.session.list.query())).toMatch(/^UNAUTHORIZED/);
    expect(await admin.session.list.query()).toEqual([]);

    // A config that no longer loads leaves the tokens in use; SIGHUP reads the file again.
    fs.writeFileSync(s.configFile, `{ "clientTokens": [], "tlss": 1 }`);
    expect(await s.log.next(/config not reloaded.*unknown key \\"tlss\\"/)).toBeTruthy();
    expect(await admin.session.list.query()).toEqual([]);
    s.writeConfig({ ...cfg, port: Number(new URL(s.url).port), dataDir: s.dataDir });
    await waitUntil(() => s.log.lines.filter((l) => /tokens reloaded/.test(l)).length === 2, 5000, "the second reload");
    s.server.kill("SIGHUP");
    await waitUntil(() => s.log.lines.filter((l) => /tokens reloaded/.test(l)).length === 3, 5000, "the reload on SIGHUP");
    expect(await (await s.client(VIEWER)).session.list.query()).toEqual([]);
  });
});

describe("gatehouse server --tls, without a config file", () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill("SIGKILL");
  });

  /** `gatehouse server --tls MODE` on a free loopback port: its stdout line and its stderr lines. */
  async function serve(tls: string, dataDir: string) {
    const child = spawn(process.execPath, [BIN, "server", "--port", "0", "--store", "memory", "--data-dir", dataDir, "--tls", tls], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    const err = new Output(child.stderr!);
    const first = await new Promise<{ url: string; console: string; fingerprint?: string }>((resolve) =>
      readline.createInterface({ input: child.stdout! }).once("line", (line) => resolve(JSON.parse(line))),
    );
    return { ...first, err };
  }

  const cli = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, ...env }, timeout: 20_000 });

  it("serves TLS on loopback with a self-signed certificate, prints the console's URL and the fingerprint, and a wrong scheme is one line with the fix", async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-tls-flag-")));
    try {
      const secure = await serve("self-signed", path.join(root, "tls-data"));
      expect(secure.url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+$/);
      expect(secure.console).toBe(`${secure.url.replace(/^wss/, "https")}/`);
      expect(secure.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      await secure.err.next(
        new RegExp(
          `^gatehouse: the browser console is at ${secure.console}; the certificate's SHA-256 fingerprint, to compare with the browser's: ${secure.fingerprint}$`,
        ),
      );

      const plain = await serve("off", path.join(root, "plain-data"));
      expect(plain.url).toMatch(/^ws:\/\//);
      const env = { GATEHOUSE_KNOWN_SERVERS: path.join(root, "known_servers"), GATEHOUSE_CLIENT_TOKEN: ADMIN };
      const toTls = cli(["audit", "--server", secure.url.replace(/^wss/, "ws")], env);
      expect([toTls.status, toTls.stderr]).toEqual([1, `gatehouse: ${secure.url.slice("wss://".length)} speaks TLS: use wss:// instead of ws://\n`]);
      const toPlain = cli(["audit", "--server", plain.url.replace(/^ws/, "wss")], env);
      expect([toPlain.status, toPlain.stderr]).toEqual([
        1,
        `gatehouse: ${plain.url.slice("ws://".length)} answers in plain text, not TLS: use ws:// instead of wss:// (or start the server with --tls self-signed)\n`,
      ]);
      expect(fs.existsSync(env.GATEHOUSE_KNOWN_SERVERS)).toBe(false);

      const tlsDir = path.join(root, "tls-data", "tls");
      const own = await serve(`${path.join(tlsDir, "cert.pem")},${path.join(tlsDir, "key.pem")}`, path.join(root, "own-data"));
      expect([own.url.startsWith("wss://"), own.fingerprint]).toEqual([true, secure.fingerprint]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("refuses a --tls it does not take with the forms it takes, and CERT,KEY files that cannot be read", () => {
    const r = cli(["server", "--tls", "mine.pem"], {});
    expect([r.status, r.stderr]).toEqual([
      2,
      'gatehouse: --tls must be auto, self-signed, off or CERT,KEY (two PEM files, separated by a comma; got "mine.pem")\n',
    ]);
    const missing = cli(["server", "--port", "0", "--store", "memory", "--tls", "/nonexistent/c.pem,/nonexistent/k.pem"], {});
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/\/nonexistent\/c\.pem/);
  });
});
