import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_TOKEN, Cluster, Events, waitUntil } from "./support/cluster.js";
import { Tmux } from "./support/tmux.js";

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const NO_MODEL = { ...process.env, GATEHOUSE_MODEL: "", CI: "" };

let cluster: Cluster | undefined;
let root: string | undefined;
let tmux: Tmux | undefined;
afterEach(async () => {
  tmux?.kill();
  tmux = undefined;
  await cluster?.stop();
  cluster = undefined;
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function folder(): string {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-run-")));
  return root;
}

/** `gatehouse run ...` without a terminal; `output()` reads what it wrote so far. */
function started(args: string[]) {
  const child = spawn(process.execPath, [BIN, "run", ...args], { stdio: ["ignore", "pipe", "pipe"], env: NO_MODEL });
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out.stderr += chunk.toString()));
  const ended = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (status) => resolve({ status, ...out })),
  );
  return { output: () => out, ended };
}

/** `gatehouse run ...` to its end, without a terminal. */
const run = (args: string[]) => started(args).ended;

const events = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { id: string; type: string; text?: string; message?: { text: string } });

describe("gatehouse run", () => {
  it("with no model configured and no scenario, says so and exits 2 without playing the tour", () => {
    const dir = folder();
    const r = spawnSync(process.execPath, [BIN, "run", "--prompt", "hi", "--dir", dir, "--data-dir", path.join(dir, "data")], {
      encoding: "utf8",
      env: NO_MODEL,
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "gatehouse: no model is configured: give --model PROVIDER:MODEL (or GATEHOUSE_MODEL; docs/models.md), or --scenario FILE for the scripted model\n",
    );
    expect(r.stdout).toBe("");
    expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
  });

  it("a missing and a malformed scenario file both exit 2, naming the file, before anything starts", () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, "bad.yaml"), "{ nope\n");
    fs.writeFileSync(path.join(dir, "bad.json"), JSON.stringify({ steps: 3 }));
    const results = ["missing.yaml", "bad.yaml", "bad.json"].map((name) => {
      const args = ["--prompt", "hi", "--dir", dir, "--data-dir", path.join(dir, "data"), "--scenario", path.join(dir, name)];
      return spawnSync(process.execPath, [BIN, "run", ...args], { encoding: "utf8", env: NO_MODEL, timeout: 20_000 });
    });
    expect(results.map((r) => r.status)).toEqual([2, 2, 2]);
    expect(results.map((r) => r.stderr.split("\n").length)).toEqual([2, 2, 2]);
    expect(results[0]!.stderr).toMatch(/^gatehouse: cannot read scenario .*missing\.yaml: ENOENT/);
    expect(results[1]!.stderr).toMatch(/^gatehouse: .*bad\.yaml: Flow map must end/);
    expect(results[2]!.stderr).toMatch(/^gatehouse: .*bad\.json: steps: /);
    expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
  });

  it("gatehouse server refuses a scenario it could not play, with exit 2, before listening", () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, "bad.yaml"), "{ nope\n");
    const r = spawnSync(
      process.execPath,
      [BIN, "server", "--port", "0", "--store", "memory", "--data-dir", path.join(dir, "data"), "--scenario", path.join(dir, "bad.yaml")],
      {
        encoding: "utf8",
        env: NO_MODEL,
        timeout: 20_000,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^gatehouse: .*bad\.yaml: Flow map must end/);
    expect(r.stdout).toBe("");
  });

  it("--json writes a message's streamed text as one line, not one per word", async () => {
    const dir = folder();
    const scenario = path.join(dir, "scenario.json");
    fs.writeFileSync(scenario, JSON.stringify({ name: "words", steps: [{ text: "one two three four five" }] }));
    const r = await run(["--prompt", "go", "--json", "--dir", dir, "--data-dir", path.join(dir, "data"), "--scenario", scenario]);
    expect(r.status, r.stderr).toBe(0);
    const all = events(r.stdout);
    const deltas = all.filter((e) => e.type === "assistant_text_delta");
    expect(deltas.map((e) => e.text)).toEqual(["one two three four five"]);
    const ids = all.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(all.find((e) => e.type === "assistant_message")?.message?.text).toBe("one two three four five");
  });

  it("--scenario with --server: the scripted model plays that scenario there, whatever the server's own model", async () => {
    cluster = await Cluster.start({ config: { model: "anthropic:claude-sonnet-4-5" }, env: { ANTHROPIC_API_KEY: "sk-never-used" } });
    const scenario = cluster.scenario("remote", [{ text: "played from the given scenario" }]);
    const r = await run(["--prompt", "go", "--server", cluster.url, "--token", CLIENT_TOKEN, "--worker", "w1", "--scenario", scenario]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("played from the given scenario");
  });
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
const ASK_SHELL = `{ "*": "ask", "read_file": "allow", "write_file": "allow" }`;

describe("gatehouse run, when a call asks", { timeout: 60_000 }, () => {
  /** A cluster whose worker w1 asks for shell commands, and the flags of a run there playing `steps`. */
  async function remote(steps: unknown[], rules = ASK_SHELL, files: Record<string, string> = {}) {
    cluster = await Cluster.start({ rules, files });
    const scenario = cluster.scenario("asks", steps);
    const events = new Events(cluster.client(), {});
    return { events, args: ["--prompt", "go", "--server", cluster.url, "--token", CLIENT_TOKEN, "--worker", "w1", "--scenario", scenario] };
  }

  it("on a terminal: a batch's asks come one at a time, output never runs into the [y/N] line, and run ends when another client answers", async () => {
    // The first call is critical: once is all the server takes for it, and all run offers.
    const r = await remote([{ text: "Two.", toolCalls: [shell("dd if=/dev/zero of=/dev/null count=1"), shell("echo two > two.txt")] }, { text: "finished" }]);
    // Narrow, so that the questions wrap: a question taken off the screen goes with all its rows.
    const t = (tmux = new Tmux(`node ${BIN} run ${r.args.join(" ")}`, 60, 40));
    await t.waitFor(
      /\? shell_exec echo two > two\.txt asks[^\n]*\n(.*\n)*approve shell_exec dd if=\/dev\/zero of=\/dev\/null count=1 once\? \[y\/N\/e\] *$/m,
      "the first question, below the second ask",
    );
    t.type("y");
    t.keys("Enter");
    await t.waitFor(/approve shell_exec echo two > two\.txt once\? \[y\/N\/e\] *$/m, "the second question");
    const first = await r.events.next("tool_approval_resolved");
    expect(first).toMatchObject({ outcome: "approved", scope: "once", by: "ada" });
    const second = await r.events.next("tool_approval_required", (e) => e.arguments.includes("two.txt"), 10_000);
    expect(await cluster!.client().tool.approve.mutate({ sessionId: second.sessionId, approvalId: second.approvalId })).toEqual({ applied: true });
    const screen = await t.waitFor(/turn ended: completed\n(.*\n)*EXITED 0/, "run to end by itself");
    expect(screen).toMatch(/^ +approved by ada$/m);
    // Output that came while a question was open is there whole, every row of it.
    expect(screen).toMatch(/^\? shell_exec echo two > two\.txt asks: static rule \* "\*": ask at \S+permissions\.jsonc:1:3$/m);
    // A question line holds the question and what was typed to answer it, nothing else.
    expect(screen).not.toMatch(/\[y\/N\/e\](?! ?[yne]?$)/m);
    // The question another client answered is gone from the screen.
    expect(screen).not.toContain("approve shell_exec echo two");
    expect(fs.readFileSync(path.join(cluster!.workDir, "two.txt"), "utf8")).toBe("two\n");
  });

  it("on a terminal, e edits the call: an edit the gate denies is refused with the reason, the next is shown against the original and runs instead", async () => {
    const rules = `{ "*": "ask", "shell_exec": { "*": "ask", "curl *": "deny" } }`;
    const files = { "build/a.o": "a", "dist/app.js": "app" };
    const r = await remote([{ text: "Cleaning.", toolCalls: [shell("rm -rf build dist")] }, { text: "finished" }], rules, files);
    const t = (tmux = new Tmux(`node ${BIN} run ${r.args.join(" ")}`));
    await t.waitFor(/approve shell_exec rm -rf build dist once\? \[y\/N\/e\] *$/m, "the question");
    t.type("e");
    t.keys("Enter");
    await t.waitFor(/^edit the command: rm -rf build dist$/m, "the edit line, holding the command");
    t.keys("C-u");
    t.type("curl http://127.0.0.1:9/x");
    t.keys("Enter");
    await t.waitFor(
      /\(not approved: the edited shell_exec call is denied: .*curl.*; the call is still pending\)\n(.*\n)*edit the command: curl http:\/\/127\.0\.0\.1:9\/x$/m,
      "the refusal",
    );
    t.keys("C-u");
    t.type("rm -rf dist");
    t.keys("Enter");
    await t.waitFor(
      /^ {2}- rm -rf build dist\n {2}\+ rm -rf dist\n {2}why it asks: .*\napprove the edited call once\? \[y\/N\/e\] *$/m,
      "the edited call against the original",
    );
    t.type("y");
    t.keys("Enter");
    const screen = await t.waitFor(/turn ended: completed\n(.*\n)*EXITED 0/, "run to end");
    expect(screen).toContain("finished");
    expect(await r.events.next("tool_approval_resolved")).toMatchObject({ outcome: "approved", editedArguments: JSON.stringify({ command: "rm -rf dist" }) });
    expect(fs.existsSync(path.join(cluster!.workDir, "dist"))).toBe(false);
    expect(fs.readFileSync(path.join(cluster!.workDir, "build/a.o"), "utf8")).toBe("a");
  });

  it("on a terminal, an edit that hits a critical pattern says so, and y runs it once, confirmed", async () => {
    const r = await remote([{ text: "Echo.", toolCalls: [shell("echo hi")] }, { text: "finished" }]);
    const t = (tmux = new Tmux(`node ${BIN} run ${r.args.join(" ")}`));
    await t.waitFor(/approve shell_exec echo hi once\? \[y\/N\/e\] *$/m, "the question");
    t.type("e");
    t.keys("Enter");
    await t.waitFor(/^edit the command: echo hi$/m, "the edit line");
    t.keys("C-u");
    t.type("dd if=/dev/zero of=/dev/null count=1");
    t.keys("Enter");
    await t.waitFor(/^ {2}critical: dd writes to a device\nrun the edited call once, past its critical pattern\? \[y\/N\/e\] *$/m, "the critical edit");
    t.type("y");
    t.keys("Enter");
    await t.waitFor(/turn ended: completed\n(.*\n)*EXITED 0/, "run to end");
    expect(await r.events.next("tool_call_started")).toMatchObject({ arguments: JSON.stringify({ command: "dd if=/dev/zero of=/dev/null count=1" }) });
    expect(r.events.of("tool_approval_resolved")).toMatchObject([{ outcome: "approved", scope: "once" }]);
  });

  it("without a terminal, in a mode other than strict: says nobody can answer here, aborts the turn, exits 4", async () => {
    const r = await remote([{ text: "Writing.", toolCalls: [shell("echo made > made.txt")] }, { text: "never" }]);
    const done = await run([...r.args, "--mode", "default"]);
    expect(done.status, done.stderr).toBe(4);
    expect(done.stderr).toContain(
      "gatehouse: nobody can answer shell_exec echo made > made.txt here: there is no terminal. The turn is aborted; --wait waits for another client to answer, --mode strict denies what asks\n",
    );
    expect(done.stdout).toContain("turn ended: aborted");
    expect((await r.events.next("tool_approval_resolved")).outcome).toBe("cancelled");
    expect(fs.existsSync(path.join(cluster!.workDir, "made.txt"))).toBe(false);
  });

  it("--wait without a terminal waits for another client's answer, then ends with the turn", async () => {
    const r = await remote([{ text: "Writing.", toolCalls: [shell("echo made > made.txt")] }, { text: "finished" }]);
    const child = started([...r.args, "--wait"]);
    await waitUntil(() => child.output().stderr.includes("waiting for another client to answer shell_exec echo made > made.txt"), 20_000, "the wait");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(child.output().stdout).not.toContain("turn ended");
    const ask = await r.events.next("tool_approval_required");
    expect(child.output().stderr).toContain(`(approval ${ask.approvalId} of session ${ask.sessionId})`);
    await cluster!.client().tool.approve.mutate({ sessionId: ask.sessionId, approvalId: ask.approvalId });
    const done = await child.ended;
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/approved by ada\n[\s\S]*finished\nturn ended: completed\n$/);
    expect(fs.readFileSync(path.join(cluster!.workDir, "made.txt"), "utf8")).toBe("made\n");
  });
});
