import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events, waitUntil, WORKER_TOKEN } from "./support/cluster.js";
import { callProcesses, processesWith, spinUntilStarted } from "./support/process.js";

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const SECRET = "KEY=sandbox-e2e-secret";

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

/** A session in yolo mode: whatever the rules do not deny runs, so the sandbox is what stops a command. */
async function yoloSession(c: Cluster, client: GatehouseClient, steps: unknown[]) {
  const info = await client.session.create.mutate({ workerId: "w1", mode: "yolo", scenario: c.scenario("s", steps) });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  return { id: info.id, events };
}

describe("shell commands in the sandbox, with a real server and worker", () => {
  it("the worker reports its sandbox when it registers", async () => {
    cluster = await Cluster.start();
    const workers = await cluster.client().workers.list.query();
    expect(workers).toMatchObject([
      {
        id: "w1",
        workDir: cluster.workDir,
        connected: true,
        sandbox: { mode: "auto", active: true, network: true, egress: "proxy", detail: "bubblewrap, network through the worker's proxy under the rules" },
      },
    ]);
  });

  it("a batch that makes a symlink to .env and then reads it gets no secret", async () => {
    cluster = await Cluster.start({ files: { ".env": SECRET }, rules: `{"*": "ask", "read_file": {"*": "allow", "*.env": "deny"}, "shell_exec": "allow"}` });
    const s = await yoloSession(cluster, cluster.client(), [
      { text: "x", toolCalls: [shell("ln -s .env notes.txt"), shell("cat notes.txt"), shell('f=notes.txt; cat "$f"; cat notes*')] },
      { text: "done" },
    ]);
    await s.events.next("turn_ended", () => true, 15_000);
    const results = s.events.of("tool_result");
    expect(results).toHaveLength(3);
    expect(results[1]!.output).toMatch(/refused shell_exec: .*\.env/);
    expect(results[2]!.stderr).toMatch(/Permission denied/);
    for (const r of results) expect(JSON.stringify(r)).not.toContain("sandbox-e2e-secret");
  });

  it("cd into the data directory and a redirect there changes nothing", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow"}` });
    const data = path.join(cluster.root, "data");
    const before = fs.readFileSync(cluster.rulesFile, "utf8");
    const s = await yoloSession(cluster, cluster.client(), [
      {
        text: "x",
        toolCalls: [shell(`d=${data}; cd "$d" && echo '{"*": "allow"}' > workers/w1/permissions.jsonc; cd "$d/workers/w1"; echo x > injected; ls "$d"`)],
      },
      { text: "done" },
    ]);
    await s.events.next("turn_ended", () => true, 15_000);
    expect(fs.readFileSync(cluster.rulesFile, "utf8")).toBe(before);
    expect(fs.existsSync(path.join(data, "workers", "w1", "injected"))).toBe(false);
    expect(s.events.of("tool_result")[0]!.stderr).toMatch(/No such file or directory/);
  });

  it("a command sees no token: not in its environment, not in any process it can see", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow"}` });
    await cluster.killWorker();
    await cluster.startWorker([], { GATEHOUSE_WORKER_TOKEN: WORKER_TOKEN });
    const s = await yoloSession(cluster, cluster.client(), [
      {
        text: "x",
        toolCalls: [shell("env"), shell("cat /proc/self/environ; echo; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done")],
      },
      { text: "done" },
    ]);
    await s.events.next("turn_ended", () => true, 15_000);
    const [env, proc] = s.events.of("tool_result");
    expect(JSON.stringify(env)).toContain("PATH=");
    // The gate's floor refuses reading a process's own files; the person's command below shows the sandbox alone.
    expect(proc).toMatchObject({ outcome: "denied" });
    expect(JSON.stringify(s.events.of("tool_result"))).not.toContain(WORKER_TOKEN);
    const shown = await cluster.client().session.shell.mutate({ sessionId: s.id, command: "tr '\\0' '\\n' < /proc/self/environ; cat /proc/[0-9]*/environ" });
    expect(shown.stdout).toContain("PATH=");
    expect(JSON.stringify(shown)).not.toContain(WORKER_TOKEN);
  });

  it("a folder made a git directory by plain files is not obeyed by a person's !git status", async () => {
    const VAULT = "vault-key-e2e";
    cluster = await Cluster.start({
      rules: `{"*": "ask", "read_file": {"*": "allow", "conf/vault/*": "deny"}, "shell_exec": "allow"}`,
      files: {
        "conf/vault/key": VAULT,
        HEAD: "ref: refs/heads/main\n",
        config: '[core]\n\trepositoryformatversion = 0\n\tworktree = .\n\tfsmonitor = "cat conf/vault/key > leak.txt; true"\n',
        "objects/info/keep": "",
        "refs/heads/keep": "",
      },
    });
    const client = cluster.client();
    const s = await client.session.create.mutate({ workerId: "w1", mode: "default", scenario: cluster.scenario("s", [{ text: "done" }]) });
    const ran = await client.session.shell.mutate({ sessionId: s.id, command: "git status" });
    expect(ran.stderr).toContain("cannot use bare repository");
    expect(fs.existsSync(path.join(cluster.workDir, "leak.txt"))).toBe(false);
  });

  it("with the default rules, a key in ~/.ssh is out of reach: read_file, cat, and a script the gate let through", async () => {
    // Outside /tmp, which the sandbox replaces with its own: there the host's files are visible unless masked.
    const home = fs.mkdtempSync("/var/tmp/gh-home-");
    try {
      fs.mkdirSync(path.join(home, ".ssh"), { mode: 0o700 });
      fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "PRIVATE-KEY-e2e-ssh\n", { mode: 0o600 });
      fs.mkdirSync(path.join(home, ".config", "gh"), { recursive: true });
      fs.writeFileSync(path.join(home, ".config", "gh", "hosts.yml"), "oauth_token: TOKEN-e2e-gh\n");
      fs.writeFileSync(path.join(home, ".gitconfig"), "[user]\n  name = ada-e2e\n");
      cluster = await Cluster.start({ workerEnv: { HOME: home } });
      const script = `cat ${home}/.gitconfig; cat ${home}/.ssh/id_rsa; cat ${home}/.config/gh/hosts.yml; ls ${home}/.ssh\n`;
      const s = await yoloSession(cluster, cluster.client(), [
        {
          text: "x",
          toolCalls: [
            { tool: "read_file", args: { path: "~/.ssh/id_rsa" } },
            shell("cat ~/.ssh/id_rsa"),
            { tool: "write_file", args: { path: "run.sh", content: script } },
            shell("bash run.sh"),
          ],
        },
        { text: "done" },
      ]);
      await s.events.next("turn_ended", () => true, 15_000);
      const [read, cat, write, run] = s.events.of("tool_result");
      expect(read).toMatchObject({ outcome: "denied" });
      expect(cat).toMatchObject({ outcome: "denied" });
      expect(write).toMatchObject({ ok: true });
      expect(run).toMatchObject({ output: "[user]\n  name = ada-e2e\n", exitCode: 2 });
      expect(run!.stderr).toMatch(/id_rsa: Permission denied\n.*hosts.yml: Permission denied\nls: .*\.ssh'?: Permission denied/);
      const all = JSON.stringify(s.events.of("tool_result"));
      expect(all).not.toContain("PRIVATE-KEY-e2e-ssh");
      expect(all).not.toContain("TOKEN-e2e-gh");
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("killing the worker with SIGKILL during `sleep 30` leaves no process behind", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow"}` });
    const marker = `30.${process.pid}2`;
    const s = await yoloSession(cluster, cluster.client(), [{ text: "x", toolCalls: [shell(`(sleep ${marker}; echo) & sleep ${marker}`)] }]);
    await s.events.next("tool_call_started");
    await waitUntil(() => processesWith(`sleep ${marker}`).length >= 5, 5000, "the sleeps to start");
    expect(callProcesses(marker).some((p) => /socat/.test(p))).toBe(true);
    cluster.worker!.kill("SIGKILL");
    await waitUntil(() => callProcesses(marker).length === 0, 5000, "every process of the call to be gone, its sandbox and relay too");
  });

  it("an aborted call leaves no process behind", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow"}` });
    const client = cluster.client();
    const marker = `30.${process.pid}3`;
    const s = await yoloSession(cluster, client, [{ text: "x", toolCalls: [shell(`setsid sleep ${marker} & nohup sleep ${marker} & sleep ${marker}`)] }]);
    await waitUntil(() => processesWith(`sleep ${marker}`).length >= 5, 5000, "the sleeps to start");
    expect(callProcesses(marker).some((p) => /socat/.test(p))).toBe(true);
    await client.agent.abort.mutate({ sessionId: s.id });
    await s.events.next("turn_ended", (e) => e.reason === "aborted");
    await waitUntil(() => callProcesses(marker).length === 0, 5000, "every process of the call to be gone, its sandbox and relay too");
  });

  it.each([
    ["timed out", (m: string) => ({ tool: "shell_exec", args: { command: `sleep ${m}`, timeout_ms: 1500 } })],
    ["ended by itself", (m: string) => shell(`sleep ${m} & sleep 0.5; echo ended`)],
    ["ended by itself, a child ignoring SIGTERM in the background", (m: string) => shell(`(trap '' TERM HUP INT; setsid sleep ${m}) & sleep 0.5; echo ended`)],
    [
      "timed out, a child ignoring SIGTERM in the background",
      (m: string) => ({ tool: "shell_exec", args: { command: `(trap '' TERM; exec sleep ${m}) & trap '' TERM; sleep ${m}`, timeout_ms: 1500 } }),
    ],
  ])("a call %s leaves no process behind: not the command, its sandbox, nor its network relay", async (_how, call) => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow"}` });
    const marker = `30.${process.pid}${Date.now() % 100000}`;
    const s = await yoloSession(cluster, cluster.client(), [{ text: "x", toolCalls: [call(marker)] }, { text: "done" }]);
    await waitUntil(() => callProcesses(marker).some((p) => /socat/.test(p)), 5000, "the relay to start");
    await s.events.next("tool_result", () => true, 10_000);
    await waitUntil(() => callProcesses(marker).length === 0, 3000, "every process of the call to be gone, its sandbox and relay too");
  });

  it("stopping the worker (SIGTERM) during a call leaves no process behind: not the command, its sandbox, nor its network relay", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow"}` });
    const marker = `30.${process.pid}5`;
    await yoloSession(cluster, cluster.client(), [{ text: "x", toolCalls: [shell(`(trap '' TERM; sleep ${marker}) & sleep ${marker}`)] }]);
    await waitUntil(() => callProcesses(marker).some((p) => /socat/.test(p)), 5000, "the relay to start");
    cluster.worker!.kill("SIGTERM");
    await waitUntil(() => callProcesses(marker).length === 0, 5000, "every process of the call to be gone, its sandbox and relay too");
  });

  it("killing the worker with SIGKILL while bubblewrap is still starting leaves no sandbox or relay behind", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow"}` });
    const marker = `30.${process.pid}4`;
    // Each call gives one chance at the milliseconds before bubblewrap ties itself to the worker.
    for (let i = 0; i < 5; i++) {
      const s = await yoloSession(cluster, cluster.client(), [{ text: "x", toolCalls: [shell(`sleep ${marker}${i}`)] }]);
      await s.events.next("tool_call_started");
      spinUntilStarted(`sleep ${marker}${i}`);
      cluster.worker!.kill("SIGKILL");
      await cluster.killWorker();
      await cluster.startWorker();
    }
    await waitUntil(() => callProcesses(`sleep ${marker}`).length === 0, 5000, "every process of the calls to be gone, their sandboxes and relays too");
  });

  it("a command under rules that open every host cannot reach the server's own port, directly or through the proxy", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow", "network": {"*": "allow"}}` });
    const url = `http://127.0.0.1:${cluster.port}/`;
    const s = await yoloSession(cluster, cluster.client(), [
      {
        text: "x",
        toolCalls: [
          shell(
            `NO_PROXY= no_proxy= curl -sS --max-time 5 ${url}; node -e 'require("net").connect(${cluster.port},"127.0.0.1").on("connect",()=>console.log("CONNECTED")).on("error",e=>console.log(e.code))'`,
          ),
        ],
      },
      { text: "done" },
    ]);
    await s.events.next("turn_ended", () => true, 15_000);
    const result = s.events.of("tool_result")[0]!;
    expect(result.output).toMatch(/gatehouse refused 127\.0\.0\.1:\d+: it reaches the Gatehouse server \(127\.0\.0\.1\)/);
    expect(result.output).toMatch(/ECONNREFUSED/);
    expect(result.output).not.toMatch(/CONNECTED/);
  });
});

describe("the worker's sandbox setting", () => {
  const noBwrap = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-nobwrap-"));
    return { dir, env: { ...process.env, PATH: dir } };
  };

  it("required without bubblewrap: the worker refuses to start with one line saying why", () => {
    const { dir, env } = noBwrap();
    const r = spawnSync(process.execPath, [BIN, "worker", "--server", "ws://127.0.0.1:1", "--id", "w1", "--dir", dir, "--sandbox", "required"], {
      env: { ...env, GATEHOUSE_WORKER_TOKEN: WORKER_TOKEN },
      encoding: "utf8",
      timeout: 20_000,
    });
    fs.rmSync(dir, { recursive: true });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("gatehouse: the sandbox is required but bwrap is not installed (apt-get install bubblewrap)\n");
  });

  it("a bad setting is named", () => {
    const r = spawnSync(process.execPath, [BIN, "worker", "--server", "ws://127.0.0.1:1", "--token", WORKER_TOKEN, "--id", "w1", "--sandbox", "maybe"], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('gatehouse: --sandbox must be one of required, auto, off (got "maybe")\n');
  });

  it("auto without bubblewrap says so loudly and registers without it; required with the no-shell fallback offers no shell_exec", async () => {
    cluster = await Cluster.start();
    const { dir, env } = noBwrap();
    await cluster.killWorker();
    await cluster.startWorker([], { PATH: env.PATH! });
    const client = cluster.client();
    expect((await client.workers.list.query())[0]!.sandbox).toMatchObject({
      mode: "auto",
      active: false,
      detail: expect.stringMatching(/bwrap is not installed.*WITHOUT the OS sandbox/),
    });
    await waitUntil(() => /"level":40[^\n]*no OS sandbox: bwrap is not installed/.test(cluster!.workerLog), 5000, "the warning");
    await cluster.killWorker();
    await cluster.startWorker(["--sandbox", "required", "--sandbox-fallback", "no-shell"], { PATH: env.PATH! });
    expect((await client.workers.list.query())[0]!.sandbox).toMatchObject({
      mode: "required",
      active: false,
      detail: expect.stringMatching(/shell_exec is not offered/),
    });
    const s = await yoloSession(cluster, client, [{ text: "x", toolCalls: [shell("echo hi")] }, { text: "done" }]);
    await s.events.next("turn_ended", () => true, 15_000);
    expect(s.events.of("tool_result")[0]).toMatchObject({ ok: false, output: expect.stringMatching(/has no tool named shell_exec/) });
    expect(s.events.of("tool_result")[0]!.output).not.toContain("hi\n");
    fs.rmSync(dir, { recursive: true });
  });
});
