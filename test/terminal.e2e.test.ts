import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { closeClient } from "@gatehouse/protocol";
import { connectNodeClient } from "@gatehouse/protocol/node";
import { CLIENT_TOKEN, Cluster, waitUntil } from "./support/cluster.js";
import { Proxy } from "./support/proxy.js";
import { Tmux } from "./support/tmux.js";

// Each test drives a whole session through tmux; on a busy machine one can take half a minute.
vi.setConfig({ testTimeout: 60_000 });

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const RULES = `{
  "*": "ask",
  "read_file": { "*": "allow", "*.env": "deny" },
  "glob": "allow",
  "shell_exec": { "*": "ask", "ls *": "allow" }
}
`;

let tmux: Tmux | undefined;
let root: string | undefined;
let cluster: Cluster | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  tmux?.kill();
  tmux = undefined;
  await proxy?.close();
  await cluster?.stop();
  proxy = undefined;
  cluster = undefined;
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** A work folder, a data folder with the rules of worker `local`, and a scenario file. */
function setup(steps: unknown[]) {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-term-")));
  const work = path.join(root, "work");
  fs.mkdirSync(work);
  fs.writeFileSync(path.join(work, "notes.txt"), "some notes\n");
  fs.mkdirSync(path.join(root, "data", "workers", "local"), { recursive: true });
  fs.writeFileSync(path.join(root, "data", "workers", "local", "permissions.jsonc"), RULES);
  const scenario = path.join(root, "scenario.json");
  fs.writeFileSync(scenario, JSON.stringify({ name: "terminal-test", steps }));
  return { work, data: path.join(root, "data"), scenario, rules: path.join(root, "data", "workers", "local", "permissions.jsonc") };
}

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

describe("the terminal client, driven in tmux", () => {
  it("approve once, always (the same command then runs without asking), deny with feedback, !ls, abort, quit", async () => {
    const s = setup([
      { text: "Step one.", toolCalls: [shell("echo first-call")] },
      { text: "Step two.", toolCalls: [shell("echo second-call")] },
      { text: "Step three.", toolCalls: [shell("echo third-call")] },
      { text: "Step four.", toolCalls: [shell("rm -f notes.txt")] },
      { text: "The model received: {{lastResult}}" },
      { text: "Sleeping.", toolCalls: [shell("sleep 30")] },
      { text: "never shown" },
    ]);
    const t = (tmux = new Tmux(`node ${BIN} --dir ${s.work} --data-dir ${s.data} --scenario ${s.scenario}`));
    await t.waitFor(/a prompt, !command/, "the input line");
    t.type("/bogus");
    t.keys("Enter");
    t.type("/mode fast");
    t.keys("Enter");
    await t.waitFor(/error: unknown command \/bogus[^\n]*\n(.*\n)?error: usage: \/mode default\|/, "both problems, one under the other");
    t.type("go");
    t.keys("Enter");

    await t.waitFor(/approval +shell_exec tier exec[\s\S]*\$ echo first-call[\s\S]*a always \(echo \*\)/, "the first approval");
    t.keys("y");
    await t.waitFor(/✓ done shell_exec echo first-call +· approved by /, "the first call to run");

    await t.waitFor(/\$ echo second-call[\s\S]*y once/, "the second approval");
    t.keys("a");
    await t.waitFor(/always allow this pattern \(saved to the rules file\):\s*│\n│ › echo \*/, "the pattern editor");
    t.keys("Enter");
    await t.waitFor(/✓ done shell_exec echo second-call +· approved by .*always: echo \*/, "the second call to run");
    const third = await t.waitFor(/✓ done shell_exec echo third-call +· (runtime|static) rule shell_exec "echo \*"/, "the third call, allowed by the new rule");
    expect(third).not.toMatch(/\$ echo third-call/);
    expect(fs.readFileSync(s.rules, "utf8")).toMatch(/"echo \*": "allow" \/\/ approved by /);

    await t.waitFor(/\$ rm -f notes\.txt[\s\S]*y once/, "the rm approval");
    t.keys("n");
    await t.waitFor(/feedback for the model/, "the feedback line");
    t.type("keep the notes");
    t.keys("Enter");
    await t.waitFor(
      /The model received: ToolRejectedError: the user rejected this shell_exec call\. Feedback: keep the notes/,
      "the model to see the feedback",
    );
    expect(fs.existsSync(path.join(s.work, "notes.txt"))).toBe(true);

    t.type("!ls");
    t.keys("Enter");
    await t.waitFor(/! ls +\(exit 0, not gated: typed by you\)\n +notes\.txt/, "the output of !ls");

    t.type("sleep now");
    t.keys("Enter");
    await t.waitFor(/\$ sleep 30[\s\S]*y once/, "the sleep approval");
    t.keys("y");
    await t.waitFor(/… running shell_exec sleep 30/, "the sleep to run");
    t.keys("C-c");
    await t.waitFor(/turn ended: aborted/, "the abort");
    expect(t.screen()).not.toMatch(/never shown/);

    t.keys("C-c");
    await t.waitFor(/EXITED 0/, "a clean exit");
  });
});

/** Whether a process whose command line contains `marker` is still running. */
const alive = (marker: string) =>
  spawnSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .stdout.split("\n")
    .some((l) => l.includes(marker) && !l.includes("ps -eo"));

describe("the person's own !command", () => {
  it("shows that it runs and streams its output; Ctrl+C kills its process group; what it printed stays, cut to the screen's width", async () => {
    const s = setup([{ text: "Ready." }]);
    const t = (tmux = new Tmux(`node ${BIN} --dir ${s.work} --data-dir ${s.data} --scenario ${s.scenario}`, 80, 40));
    await t.waitFor(/a prompt, !command/, "the input line");
    t.type("!for i in 1 2 3; do echo tick-$i; sleep 0.2; done; printf 'w%.0s' {1..120}; echo; sleep 31.5; echo finished");
    t.keys("Enter");
    const running = await t.waitFor(/! for i in[\s\S]*… running \(Ctrl\+C aborts\)\n +tick-1\n +tick-2\n +tick-3\n +w+…\n/, "the output while it runs");
    expect(running).toMatch(/· command runs \(Ctrl\+C aborts\)/);
    expect(alive("sleep 31.5")).toBe(true);
    t.keys("C-c");
    const ended = await t.waitFor(
      /\(exit none, not gated: typed by you\) *\n +tick-1 *\n +tick-2 *\n +tick-3 *\n +w+… *\n +\[aborted by [^\n]*process group was killed\]/,
      "the abort",
    );
    expect(ended).not.toMatch(/^ +finished *$|EXITED/m);
    await waitUntil(() => !alive("sleep 31.5"), 5000, "the command's processes to be gone");

    t.type("!echo kept-on-quit; sleep 31.6");
    t.keys("Enter");
    await t.waitFor(/kept-on-quit\n/, "the second command's output");
    t.type("/quit");
    t.keys("Enter");
    const after = await t.waitFor(/EXITED 0/, "a clean exit");
    expect(after).toMatch(/! echo kept-on-quit; sleep 31\.6 \(exit none, not gated: typed by you\) *\n +kept-on-quit *\n +\[aborted by [\s\S]*EXITED 0/);
    await waitUntil(() => !alive("sleep 31.6"), 5000, "the command to end with the worker");
  });
});

describe("always, with more than one pattern", () => {
  it("shows every pattern, saves each as edited, and the next such call runs without asking", async () => {
    const s = setup([
      { text: "Writing.", toolCalls: [shell("echo hello > x && ls -l x")] },
      { text: "Again.", toolCalls: [shell("echo hello > y && ls -l y")] },
      { text: "Other words.", toolCalls: [shell("echo bye && ls -l y")] },
      { text: "done" },
    ]);
    fs.writeFileSync(s.rules, `{ "*": "ask", "write_file": "allow" }\n`);
    const t = (tmux = new Tmux(`node ${BIN} --dir ${s.work} --data-dir ${s.data} --scenario ${s.scenario}`));
    await t.waitFor(/a prompt, !command/, "the input line");
    t.type("go");
    t.keys("Enter");
    await t.waitFor(/\$ echo hello > x && ls -l x[\s\S]*a always \(echo \*, ls \*\)/, "the first approval, both patterns named");
    t.keys("a");
    await t.waitFor(/always allow these 2 patterns \(saved to the rules file\):\s*│\n│ › echo \* +│\n│ {3}ls \* +│/, "both patterns to edit");
    t.keys("BSpace");
    t.type("hello *");
    t.keys("Down", "BSpace");
    t.type("-l *");
    await t.waitFor(/│ {3}echo hello \* +│\n│ › ls -l \* +│/, "both edits on screen");
    t.keys("Enter");
    await t.waitFor(/✓ done shell_exec echo hello > x && ls -l x +· approved by .*always: echo hello \*, ls -l \*/, "the first call to run");
    const again = await t.waitFor(/✓ done shell_exec echo hello > y && ls -l y +· /, "the second call, allowed by the saved rules");
    expect(again).not.toMatch(/\$ echo hello > y/);
    await t.waitFor(/\$ echo bye && ls -l y[\s\S]*a always \(echo \*\)/, "a call the edited pattern does not cover, asking");
    t.keys("y");
    await t.waitFor(/✓ done shell_exec echo bye && ls -l y[\s\S]*done/, "the last call to run");
    const rules = fs.readFileSync(s.rules, "utf8");
    expect(rules).toMatch(/"echo hello \*": "allow", \/\/ approved by /);
    expect(rules).toMatch(/"ls -l \*": "allow" \/\/ approved by /);
    expect(rules).not.toMatch(/"(echo|ls) \*"/);
    t.keys("C-c");
    await t.waitFor(/EXITED 0/, "a clean exit");
  });
});

describe("an invalid permissions file", () => {
  it("says where it is wrong; the prompt still shows the call's own tier, its diff and a narrow always pattern", async () => {
    const s = setup([{ text: "Writing.", toolCalls: [{ tool: "write_file", args: { path: "notes.txt", content: "new notes\n" } }] }, { text: "done" }]);
    fs.writeFileSync(s.rules, `{\n  "write_file": "alow"\n}\n`);
    const t = (tmux = new Tmux(`node ${BIN} --dir ${s.work} --data-dir ${s.data} --scenario ${s.scenario}`));
    await t.waitFor(/a prompt, !command/, "the input line");
    t.type("go");
    t.keys("Enter");
    const shown = await t.waitFor(/approval +write_file tier write[\s\S]*a always \(notes\.txt\)/, "the prompt");
    expect(shown).toMatch(/permissions file invalid: [^\n]*permissions\.jsonc:2:17/);
    expect(shown).toMatch(/why: the permissions file is invalid/);
    expect(shown).toMatch(/notes\.txt: the current content is not shown[\s\S]*\+new notes/);
    t.keys("y");
    await t.waitFor(/✓ done write_file notes\.txt[\s\S]*done/, "the write to run");
    t.keys("C-c");
    await t.waitFor(/EXITED 0/, "a clean exit");
  });
});

describe("the demo's own data directory", () => {
  it("keeps an always answer of the tour in the demo's rules, never a real worker's, and plays the tour again at the next start", async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-demo-")));
    const work = path.join(root, "work");
    fs.mkdirSync(work);
    const start = () => new Tmux(`node ${BIN} --dir ${work} --data-dir ${root}`);
    let t = (tmux = start());
    await t.waitFor(/approval +write_file tier write[\s\S]*a always/, "the write's ask");
    expect(t.screen()).not.toMatch(/Gatehouse checkout itself/);
    t.keys("a");
    await t.waitFor(/always allow this pattern/, "the pattern editor");
    t.keys("Enter");
    await t.waitFor(/✓ done write_file gatehouse-demo\.md/, "the write to run");
    const demoRules = path.join(root, "demo", "workers", "demo", "permissions.jsonc");
    expect(fs.readFileSync(demoRules, "utf8")).toMatch(/"gatehouse-demo\.md": "allow" \/\/ approved by /);
    expect(fs.existsSync(path.join(root, "workers"))).toBe(false);
    await t.waitFor(/approval +edit_file/, "the next ask");
    t.keys("C-c");
    await t.waitFor(/turn ended: aborted/, "the abort");
    t.keys("C-c");
    await t.waitFor(/EXITED 0/, "a clean exit");
    t.kill();

    fs.rmSync(path.join(work, "gatehouse-demo.md"));
    t = tmux = start();
    await t.waitFor(/approval +write_file tier write[\s\S]*a always/, "the write's ask again");
    expect(fs.readFileSync(demoRules, "utf8")).not.toMatch(/approved by/);
  });

  it("says so when the work directory is the Gatehouse checkout itself", async () => {
    const s = setup([{ text: "Nothing to do." }]);
    const checkout = path.resolve(import.meta.dirname, "..");
    const t = (tmux = new Tmux(`node ${BIN} --dir ${checkout} --data-dir ${s.data} --scenario ${s.scenario}`));
    const screen = await t.waitFor(/throwaway\s+copy\)\./, "the banner");
    expect(screen.replace(/\s+/g, " ")).toContain(
      "The work directory is this Gatehouse checkout itself: what you approve changes it (./gatehouse --demo plays in a throwaway copy).",
    );
  });
});

describe("the browser console of gatehouse's own server", () => {
  it("is named on the first lines with a token that signs in to it", async () => {
    const s = setup([{ text: "Nothing to do." }]);
    const t = (tmux = new Tmux(`node ${BIN} --dir ${s.work} --data-dir ${s.data} --scenario ${s.scenario}`));
    const screen = (await t.waitFor(/Browser console: [\s\S]*as long as this run\)\./, "the console's line")).replace(/\s+/g, " ");
    const [, url, token] = /Browser console: (http:\/\/127\.0\.0\.1:\d+\/) \(sign in with the token (\S+); it lasts as long as this run\)\./.exec(screen)!;
    const page = await fetch(url!);
    expect([page.status, await page.text()]).toEqual([200, expect.stringContaining("<html")]);
    const client = await connectNodeClient({ url: url!.replace(/^http/, "ws").replace(/\/$/, ""), token: token! });
    try {
      expect(await client.auth.whoami.query()).toMatchObject({ role: "admin" });
    } finally {
      await closeClient(client);
    }
  });
});

describe("gatehouse --demo", () => {
  it(
    "plays the whole tour: an allowed read, a write and an edit with diffs, a shell ask with its pattern, a rule's " +
      "denial, a subagent's veto, a critical pattern",
    async () => {
      root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-demo-")));
      const t = (tmux = new Tmux(`node ${BIN} --demo --data-dir ${root}`));
      await t.waitFor(/No model is configured: the scripted demo model plays a tour/, "the banner");
      await t.waitFor(/✓ done glob \* +· static rule glob/, "the allowed read");
      await t.waitFor(/approval +write_file tier write[\s\S]*\+# Gatehouse demo[\s\S]*y once/, "the write's diff");
      t.keys("y");
      await t.waitFor(
        /approval +edit_file[\s\S]*-Reads run; writes ask\.[\s│]*\+Reads run; writes ask; some commands never run at all\.[\s\S]*y once/,
        "the edit's diff",
      );
      t.keys("y");
      await t.waitFor(
        /approval +shell_exec[\s\S]*in \/tmp\/gatehouse-demo-[\s\S]*\$ wc -l gatehouse-demo\.md[\s\S]*a always \(wc \*\)/,
        "the shell ask with cwd and pattern",
      );
      t.keys("y");
      await t.waitFor(/⊘ denied shell_exec cat \.env/, "the denial by rule");
      await t.waitFor(
        new RegExp(
          String.raw`subagent explore started[\s\S]*✓ done explore › read_file gatehouse-demo\.md[\s\S]*` +
            String.raw`⊘ denied explore › write_file notes\.md[\s\S]*✓ done task explore: Read gatehouse-demo\.md`,
        ),
        "the explore subagent read and its write vetoed, then its task done",
      );
      const critical = await t.waitFor(
        /critical: dd writes to a device[\s\S]*y once +\(critical: approve once only\) +n deny/,
        "the critical pattern, once only",
      );
      expect(critical.slice(critical.lastIndexOf("critical: dd writes"))).not.toMatch(/s session|a always/);
      t.keys("N");
      await t.waitFor(/turn ended: rejected/, "the hard deny to end the turn");
      t.keys("C-c");
      await t.waitFor(/EXITED 0/, "a clean exit");
    },
  );
});

describe("gatehouse connect", () => {
  it("shows that it is reconnecting when the connection drops, and the pending approval again after", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask"}` });
    proxy = await Proxy.start(cluster.port);
    const client = cluster.client();
    const info = await client.session.create.mutate({
      workerId: "w1",
      scenario: cluster.scenario("remote", [{ text: "Remote.", toolCalls: [shell("echo via-connect")] }, { text: "finished" }]),
    });
    const t = (tmux = new Tmux(`node ${BIN} connect --server ${proxy.url} --token ${CLIENT_TOKEN} --session ${info.id}`));
    await t.waitFor(/· connected/, "the client to connect");
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    await t.waitFor(/\$ echo via-connect/, "the approval");
    proxy.hold();
    proxy.cut();
    await t.waitFor(/· reconnecting…/, "the client to say it is reconnecting");
    proxy.release();
    await t.waitFor(/· connected/, "the client to come back");
    await t.waitFor(/\$ echo via-connect[\s\S]*y once/, "the approval shown again");
    t.keys("y");
    await t.waitFor(/✓ done shell_exec echo via-connect[\s\S]*finished/, "the call to run after the reconnect");
  });

  it("says when the server is lost, reconnects, and shows the session as the restarted server has it", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask"}` });
    const client = cluster.client();
    const info = await client.session.create.mutate({
      workerId: "w1",
      scenario: cluster.scenario("restart", [{ text: "Asking.", toolCalls: [shell("echo across-restart")] }, { text: "finished" }]),
    });
    const t = (tmux = new Tmux(`node ${BIN} connect --server ${cluster.url} --token ${CLIENT_TOKEN} --session ${info.id}`));
    await t.waitFor(/· connected/, "the client to connect");
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    await t.waitFor(/\$ echo across-restart/, "the approval");
    await cluster.restartServer();
    await t.waitFor(/error: lost the connection to ws:\/\/127\.0\.0\.1:\d+[^\n]*; reconnecting/, "the lost connection, said");
    await t.waitFor(/reconnected to ws:\/\/127\.0\.0\.1:\d+; resuming after the last event seen/, "the reconnect");
    await waitUntil(async () => (await client.workers.list.query().catch(() => [])).some((w) => w.connected), 15_000, "the worker to come back");
    const kept = await client.session.get.query({ sessionId: info.id }).then(
      () => true,
      () => false,
    );
    if (kept) {
      // A server that keeps its sessions: the approval is there again and the turn goes on.
      await t.waitFor(/\$ echo across-restart[\s\S]*y once/, "the approval after the restart");
      t.keys("y");
      await t.waitFor(/✓ done shell_exec echo across-restart[\s\S]*finished/, "the turn to go on");
    } else {
      const gone = await t.waitFor(
        new RegExp(
          `session ${info.id} no longer exists on ws://127\\.0\\.0\\.1:\\d+: the server restarted without keeping ` +
            `it\\.\\s+/new starts a new session\\s+on\\s+worker\\s+w1; Ctrl\\+C quits\\.`,
        ),
        "the session said to be gone",
      );
      expect(gone).toMatch(/- cancelled shell_exec echo across-restart/);
      expect(gone).toMatch(/\/new starts a new session, Ctrl\+C quits *\n.*\(gone\) · mode default · connected *$/m);
      expect(gone).not.toMatch(/working/);
      t.type("/new");
      t.keys("Enter");
      await t.waitFor(/new session \S+ on worker w1/, "a new session");
      t.type("!echo on-the-new-session");
      t.keys("Enter");
      await t.waitFor(/! echo on-the-new-session \(exit 0[^\n]*\n +on-the-new-session/, "a command on the new session");
    }
    t.keys("C-c");
    await t.waitFor(/EXITED 0/, "a clean exit");
  });

  it("a refused token is one line naming the server, exit 1", () => {
    return Cluster.start().then((c) => {
      cluster = c;
      const r = spawnSync(process.execPath, [BIN, "connect", "--server", c.url, "--worker", "w1"], {
        env: { ...process.env, GATEHOUSE_CLIENT_TOKEN: "wrong-token-0000000000" },
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(`gatehouse: the server at ${c.url} refused the token (UNAUTHORIZED)\n`);
    });
  });
});

describe("gatehouse run", () => {
  const run = (args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) =>
    spawnSync(process.execPath, [BIN, "run", ...args], { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 });

  it("without a terminal, denies what asks (strict), says which call and why, and exits 3", () => {
    const s = setup([{ text: "Reading, then pushing.", toolCalls: [{ tool: "read_file", args: { path: "notes.txt" } }, shell("git push")] }, { text: "done" }]);
    const r = run(["--prompt", "go", "--dir", s.work, "--data-dir", s.data, "--scenario", s.scenario], s.work);
    expect(r.status, r.stderr).toBe(3);
    expect(r.stdout).toContain("✓ read_file notes.txt");
    expect(r.stdout).toMatch(/✗ denied: shell_exec git push: .*strict mode denies what would ask/);
    expect(r.stderr).toMatch(/denied \(1\):\n {2}shell_exec git push: /);
  });

  it("in yolo mode runs what would ask and exits 0; --json writes one event per line", () => {
    const s = setup([{ text: "Echo.", toolCalls: [shell("echo yolo-ran")] }, { text: "done" }]);
    const r = run(["--prompt", "go", "--mode", "yolo", "--json", "--dir", s.work, "--data-dir", s.data, "--scenario", s.scenario], s.work);
    expect(r.status, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ ok: true, output: expect.stringContaining("yolo-ran") });
    expect(events.at(-1)).toMatchObject({ type: "turn_ended", reason: "completed" });
  });

  it("a rule that denies exits 3 even in yolo mode; a missing prompt, a bad mode or a missing folder is a usage error (2)", () => {
    const s = setup([{ text: "Secrets.", toolCalls: [shell("cat .env")] }, { text: "done" }]);
    expect(run(["--prompt", "go", "--mode", "yolo", "--dir", s.work, "--data-dir", s.data, "--scenario", s.scenario], s.work).status).toBe(3);
    expect(run(["--dir", s.work], s.work)).toMatchObject({ status: 2, stderr: expect.stringContaining("missing --prompt") });
    expect(run(["--prompt", "x", "--mode", "fast"], s.work)).toMatchObject({ status: 2, stderr: expect.stringContaining("--mode must be one of") });
    expect(run(["--prompt", "x", "--dir", path.join(s.work, "missing")], s.work)).toMatchObject({
      status: 2,
      stderr: `gatehouse: --dir: ${path.join(s.work, "missing")} is not a directory\n`,
    });
  });

  it("exits 1 with one line when the server cannot be reached", () => {
    const env = { ...process.env, GATEHOUSE_CLIENT_TOKEN: "t".repeat(20) };
    const unreachable = run(["--prompt", "x", "--server", "ws://127.0.0.1:9", "--worker", "w1"], os.tmpdir(), env);
    expect(unreachable).toMatchObject({ status: 1, stderr: "gatehouse: cannot reach the server at ws://127.0.0.1:9\n" });
  });
});

describe("gatehouse's sandbox settings, as gatehouse worker takes them", () => {
  it("GATEHOUSE_SANDBOX=off runs shell commands unconfined, and says so in the banner", async () => {
    const marker = `outside-${process.pid}`;
    const s = setup([{ text: "Touching.", toolCalls: [shell(`touch ${os.tmpdir()}/${marker}`)] }, { text: "Touched." }]);
    const outside = path.join(os.tmpdir(), marker);
    try {
      const t = (tmux = new Tmux(`GATEHOUSE_SANDBOX=off node ${BIN} --dir ${s.work} --data-dir ${s.data} --scenario ${s.scenario} --mode yolo`));
      await t.waitFor(/Sandbox: OFF \(off by the worker's setting/, "the banner");
      t.type("go");
      t.keys("Enter");
      await t.waitFor(/Touched\./, "the call to run");
      // Inside the sandbox /tmp is private, so the file would not be here.
      expect(fs.existsSync(outside)).toBe(true);
    } finally {
      fs.rmSync(outside, { force: true });
    }
  });

  it("--network off and --sandbox required are taken as flags", async () => {
    const s = setup([{ text: "Nothing to do." }]);
    const t = (tmux = new Tmux(`node ${BIN} --dir ${s.work} --data-dir ${s.data} --scenario ${s.scenario} --sandbox required --network off`));
    await t.waitFor(/Sandbox: shell commands run in bubblewrap without\s+network\./, "the banner");
  });
});
