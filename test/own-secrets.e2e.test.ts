import fs from "node:fs";
import path from "node:path";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, CLIENT_TOKEN, Events, WORKER_TOKEN } from "./support/cluster.js";

// The system's own secrets under the default rules, in yolo mode (whatever would ask runs), with
// the sandbox on: the gate's floor and the sandbox's masks are all that stand in the way. The
// cluster lives outside /tmp, which the sandbox replaces with its own: there the host's files are
// visible unless masked.
const PINNED = "127.0.0.1:7420 AA:BB:known-servers-e2e";

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
const read = (p: string) => ({ tool: "read_file", args: { path: p } });

async function yoloTurn(c: Cluster, client: GatehouseClient, toolCalls: unknown[]) {
  const info = await client.session.create.mutate({ workerId: "w1", mode: "yolo", scenario: c.scenario("s", [{ text: "x", toolCalls }, { text: "done" }]) });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  await events.next("turn_ended", () => true, 60_000);
  return { id: info.id, results: events.of("tool_result") };
}

/** A cluster whose server keeps its store outside the data directory, and whose worker reads its token from a file. */
async function startCluster(): Promise<Cluster> {
  const under = fs.mkdtempSync("/var/tmp/gh-own-");
  const files = path.join(under, "files");
  fs.mkdirSync(files);
  fs.writeFileSync(path.join(files, "worker-token"), `${WORKER_TOKEN}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(files, "known_servers"), `${PINNED}\n`, { mode: 0o600 });
  const c = await Cluster.start({
    under,
    files: { "src/app.ts": "export const hello = 1;\n", ".gitignore": "dist/\n", "dist/app.js": "exports.hello = 1;\n" },
    config: { store: { kind: "embedded", path: path.join(under, "files", "store.db") } },
    workerFlags: ["--token-file", path.join(files, "worker-token"), "--known-servers", path.join(files, "known_servers")],
  });
  const stop = c.stop.bind(c);
  c.stop = async () => {
    await stop();
    fs.rmSync(under, { recursive: true, force: true });
  };
  return c;
}

/** Refused before it ran: by the gate, or by the worker's own check on the real path. */
function expectRefused(r: { outcome: string; output: string }): void {
  expect(["denied", "failed"]).toContain(r.outcome);
  expect(r.output).toMatch(/protected path|a process's own files/);
}

function expectNoSecret(results: unknown[]): void {
  const text = JSON.stringify(results);
  expect(text).not.toContain(WORKER_TOKEN);
  expect(text).not.toContain(CLIENT_TOKEN);
  expect(text).not.toContain("known-servers-e2e");
  expect(text).not.toContain("SQLite format");
}

describe("the system's own secrets, with a real server and worker and the sandbox on", () => {
  it("no file tool reads the config, the data directory, the store, the token file or the known-servers file, by any spelling", async () => {
    cluster = await startCluster();
    expect((await cluster.client().workers.list.query())[0]!.sandbox).toMatchObject({ active: true });
    const files = path.join(path.dirname(cluster.root), "files");
    const work = cluster.workDir;
    fs.symlinkSync("../config.json", path.join(work, "notes.txt"));
    fs.symlinkSync(cluster.root, path.join(work, "up"));
    fs.symlinkSync(files, path.join(work, "more"));
    const { results } = await yoloTurn(cluster, cluster.client(), [
      read("../config.json"),
      read(path.join(cluster.root, "config.json")),
      read("notes.txt"),
      read("up/config.json"),
      read("src/../../config.json"),
      read("../data/workers/w1/permissions.jsonc"),
      read("more/store.db"),
      read(path.join(files, "worker-token")),
      read("more/known_servers"),
      { tool: "grep", args: { pattern: "token|known-servers", path: ".." } },
      { tool: "grep", args: { pattern: "token|known-servers", path: "more" } },
      read("src/app.ts"),
      read("dist/app.js"),
      { tool: "grep", args: { pattern: "hello", path: ".", include_ignored: true } },
    ]);
    expect(results).toHaveLength(14);
    expectNoSecret(results);
    for (const r of results.slice(0, 9)) expectRefused(r);
    // Everyday reads beside them are untouched.
    expect(results.slice(11).map((r) => [r.outcome, r.output])).toEqual([
      ["ok", "export const hello = 1;\n"],
      ["ok", "exports.hello = 1;\n"],
      [
        "ok",
        expect.stringMatching(
          /src\/app\.ts:1:export const hello = 1;[\s\S]*dist\/app\.js:1:exports\.hello = 1;|dist\/app\.js:1:exports\.hello = 1;[\s\S]*src\/app\.ts:1/,
        ),
      ],
    ]);
  });

  it("no command reads them either: cat, globs, symlinks, /proc/self/root, grep -r, tar, cp and find of a parent folder", async () => {
    cluster = await startCluster();
    const files = path.join(path.dirname(cluster.root), "files");
    fs.symlinkSync(cluster.root, path.join(cluster.workDir, "up"));
    const { results } = await yoloTurn(cluster, cluster.client(), [
      shell("cat ../config.json"),
      shell("cat up/config.json"),
      shell("d=..; cat $d/config.json; cat $d/c*.json"),
      shell(`cat /proc/self/root${cluster.root}/config.json`),
      shell("grep -r token .."),
      shell("tar cf - .. 2>/dev/null | grep -a -o 'worker-token[a-z0-9-]*'"),
      shell("cp -r .. copy; cat copy/config.json"),
      shell("find .. -name '*.json' -exec cat {} +"),
      shell(`f=${files}; cat $f/worker-token $f/known_servers; head -c 100 $f/store.db`),
      shell("cat ../data/workers/w1/permissions.jsonc"),
      shell("cat src/app.ts dist/app.js; grep -rl hello ."),
    ]);
    expect(results).toHaveLength(11);
    expectNoSecret(results);
    // What the gate cannot see through (a variable, a glob) ran, and met the sandbox's masks.
    expect(results[2]).toMatchObject({ outcome: "failed" });
    expect(results[2]!.stderr).toMatch(/config\.json: Permission denied/);
    expect(results[8]!.stderr).toMatch(/worker-token: Permission denied/);
    for (const i of [0, 1, 3, 4, 5, 6, 7, 9]) expectRefused(results[i]!);
    expect(results[10]).toMatchObject({ outcome: "ok", output: expect.stringContaining("export const hello = 1;\nexports.hello = 1;\n") });
    expect(results[10]!.output).toContain("./src/app.ts");
  });

  it("no token in a process's command line; inside the sandbox, /proc/1/cmdline shows no mask layout", async () => {
    cluster = await startCluster();
    const worker = cluster.worker!.pid!;
    const cmdline = fs.readFileSync(`/proc/${worker}/cmdline`, "utf8");
    expect(cmdline).toContain("--token-file");
    expect(cmdline).not.toContain(WORKER_TOKEN);
    expect(fs.readFileSync(`/proc/${worker}/environ`, "utf8")).not.toContain(WORKER_TOKEN);
    const script = "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done\n";
    const { id, results } = await yoloTurn(cluster, cluster.client(), [{ tool: "write_file", args: { path: "ps.sh", content: script } }, shell("bash ps.sh")]);
    const shown = results[1]!.output;
    // PID 1 is bubblewrap, its options on a descriptor; a launcher (the network relay's) may precede the command.
    expect(shown).toMatch(/^bwrap --args 3 -- bash .*bash ps\.sh/s);
    for (const layout of ["--ro-bind", "--tmpfs", cluster.root]) expect(shown).not.toContain(layout);
    const person = await cluster.client().session.shell.mutate({ sessionId: id, command: "tr '\\0' ' ' < /proc/1/cmdline" });
    expect(person.stdout).toMatch(/^bwrap --args 3 -- bash .*tr '\\0' ' ' < \/proc\/1\/cmdline $/s);
    for (const layout of ["--ro-bind", "--tmpfs", cluster.root]) expect(person.stdout).not.toContain(layout);
  });

  it("a token given as --token is warned about", async () => {
    cluster = await Cluster.start();
    expect(cluster.workerLog).toContain("--token shows the token in this process's command line");
    expect(cluster.workerLog).not.toContain(WORKER_TOKEN);
  });
});
