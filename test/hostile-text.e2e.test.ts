import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLIENT_TOKEN, Cluster, Events, waitUntil } from "./support/cluster.js";
import { HOSTILE_CASES, HOSTILE_FILES } from "./support/hostile-text.js";
import { Tmux } from "./support/tmux.js";

// The terminal case answers fifteen approvals in tmux; a busy machine takes a while for each frame.
vi.setConfig({ testTimeout: 180_000 });

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const RULES = `{ "*": "ask", "read_file": "allow" }\n`;

let tmux: Tmux | undefined;
let root: string | undefined;
let cluster: Cluster | undefined;
afterEach(async () => {
  tmux?.kill();
  tmux = undefined;
  await cluster?.stop();
  cluster = undefined;
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** What a printed text may never hold as itself (newlines and tabs aside). */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u;
const printable = (text: string) => text.replace(/[\n\t]/g, "");
const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, CI: "1" }, timeout: 60_000 });

/** The screen as one line of words: box borders gone, every run of blanks one space (the box wraps long lines). */
const words = (screen: string) => screen.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");

describe("hostile text in the terminal, driven in tmux", () => {
  it("shows every hidden character escaped and the mark where the person answers; v shows the whole", async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-hostile-")));
    const work = path.join(root, "work");
    fs.mkdirSync(work);
    for (const [name, text] of Object.entries(HOSTILE_FILES)) fs.writeFileSync(path.join(work, name), text);
    fs.mkdirSync(path.join(root, "data", "workers", "local"), { recursive: true });
    fs.writeFileSync(path.join(root, "data", "workers", "local", "permissions.jsonc"), RULES);
    const scenario = path.join(root, "scenario.json");
    const steps = [...HOSTILE_CASES.map((c) => ({ text: `Case: ${c.name}.`, toolCalls: [c.call] })), { text: "All asked." }];
    fs.writeFileSync(scenario, JSON.stringify({ name: "hostile", steps }));
    const t = (tmux = new Tmux(`node ${BIN} --dir ${work} --data-dir ${path.join(root, "data")} --scenario ${scenario}`, 150, 60));
    await t.waitFor(/a prompt, !command/, "the input line");
    t.type("go");
    t.keys("Enter");
    /** Waits until the visible screen holds every one of `texts`. */
    const showing = async (texts: string[], what: string) => {
      let screen = "";
      await waitUntil(() => ((screen = words(t.visible())), texts.every((x) => screen.includes(words(x)))), 20_000, what).catch((err: Error) => {
        throw new Error(`${err.message}\n--- screen ---\n${t.visible()}`);
      });
    };
    /** Presses `key` until it is taken: a key may come before the prompt listens (its frame is drawn first). */
    const pressUntil = async (key: string, taken: () => boolean, what: string) => {
      let pressed = 0;
      await waitUntil(
        () => {
          if (taken()) return true;
          if (Date.now() - pressed > 1000) {
            t.keys(key);
            pressed = Date.now();
          }
          return false;
        },
        20_000,
        what,
      );
    };
    for (const c of HOSTILE_CASES) {
      await showing([c.shown, `⚠ ${c.mark}`, "n deny with feedback"], `the approval of: ${c.name}`);
      if (c.name.startsWith("thousands of spaces")) {
        await pressUntil("v", () => t.visible().includes("lines 1-1 of 1 (j/k"), "the pager");
        await showing(["lines 1-1 of 1 (j/k", "echo ok", "; mv build .trash"], "the pager with the whole command");
        const body = t.visible().split("q to go back)")[1]!;
        expect(body).toMatch(/^\s*echo ok\n(\s*\n){10,}\s*; mv build \.trash\n/);
        expect(body).not.toContain("⟦");
        await pressUntil("q", () => !t.visible().includes("q to go back)"), "the pager to close");
        await showing([c.shown, "n deny with feedback"], "the prompt again");
      }
      await pressUntil("n", () => t.visible().includes("feedback for the model"), "the feedback line");
      await pressUntil("Enter", () => !t.visible().includes("feedback for the model"), "the denial");
    }
    await t.waitFor(/All asked\./, "the end of the scenario");
    expect(fs.existsSync(path.join(work, "config.ini"))).toBe(true);
  });
});

describe("the digest of what was shown", () => {
  it("an approval whose digest is not the pending call's is refused and applies nothing; the right one or none applies", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask"}` });
    const client = cluster.client();
    const session = await client.session.create.mutate({
      workerId: "w1",
      scenario: cluster.scenario("digest", [
        { toolCalls: [{ tool: "shell_exec", args: { command: "echo shown-one" } }] },
        { toolCalls: [{ tool: "shell_exec", args: { command: "echo shown-two # \u202e\b" } }] },
        { text: "done" },
      ]),
    });
    const events = new Events(client, { sessionId: session.id });
    await client.agent.prompt.mutate({ sessionId: session.id, text: "go" });
    const first = await events.next("tool_approval_required");
    expect(first.digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const ref = { sessionId: session.id, approvalId: first.approvalId };

    await expect(client.tool.approve.mutate({ ...ref, digest: "x".repeat(43) })).rejects.toMatchObject({
      data: { code: "CONFLICT" },
      message: expect.stringContaining("the call changed since it was shown"),
    });
    expect(events.of("tool_approval_resolved")).toEqual([]);
    expect(await client.tool.approve.mutate({ ...ref, digest: first.digest })).toEqual({ applied: true });
    await events.next("tool_result", (e) => e.callId === first.callId, 10_000);

    const next = await events.next("tool_approval_required", (e) => e.approvalId !== first.approvalId, 10_000);
    expect(next.digest).not.toBe(first.digest);
    await expect(client.tool.approve.mutate({ sessionId: session.id, approvalId: next.approvalId, digest: first.digest })).rejects.toMatchObject({
      data: { code: "CONFLICT" },
    });
    expect(await client.tool.approve.mutate({ sessionId: session.id, approvalId: next.approvalId })).toEqual({ applied: true });
    await events.next("turn_ended", () => true, 10_000);
    expect(events.of("tool_result").map((r) => r.output.trim())).toEqual(["shown-one", "shown-two"]);
    events.close();

    const audit = cli(["audit", "--server", cluster.url, "--token", CLIENT_TOKEN]);
    expect(audit.status, audit.stderr).toBe(0);
    expect(audit.stdout).toContain('{"command":"echo shown-two # \\u202E\\b"}');
    expect(printable(audit.stdout)).not.toMatch(INVISIBLE);
    const json = cli(["audit", "--server", cluster.url, "--token", CLIENT_TOKEN, "--json"]);
    expect(printable(json.stdout)).not.toMatch(INVISIBLE);
    expect(
      json.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).arguments),
    ).toContain(JSON.stringify({ command: "echo shown-two # \u202e\b" }));
  });
});

describe("hostile text in gatehouse run and permissions explain", () => {
  it("prints every call escaped, as lines and as JSON lines that parse back to the call", () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-hostile-run-")));
    const work = path.join(root, "work");
    fs.mkdirSync(work);
    const rules = path.join(root, "data", "workers", "local", "permissions.jsonc");
    fs.mkdirSync(path.dirname(rules), { recursive: true });
    fs.writeFileSync(rules, RULES);
    const cases = HOSTILE_CASES.filter((c) => c.call.tool === "shell_exec" && c.call.args.command!.toString().length < 200);
    const scenario = path.join(root, "scenario.json");
    fs.writeFileSync(scenario, JSON.stringify({ name: "hostile", steps: [{ text: "Hostile.", toolCalls: cases.map((c) => c.call) }, { text: "done" }] }));
    const local = ["--dir", work, "--data-dir", path.join(root, "data"), "--scenario", scenario];

    const lines = cli(["run", "--prompt", "go", ...local]);
    expect(lines.status, lines.stderr).toBe(3);
    for (const out of [lines.stdout, lines.stderr]) expect(printable(out)).not.toMatch(INVISIBLE);
    expect(lines.stdout).toContain(`✗ denied: shell_exec mv build .trash${"\\b".repeat(15)}mv notes.txt notes.md:`);
    expect(lines.stderr).toContain("shell_exec echo ok \\u202E; hsart. dliub vm #\\u202C:");

    const json = cli(["run", "--prompt", "go", "--json", ...local]);
    expect(printable(json.stdout)).not.toMatch(INVISIBLE);
    const asked = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; toolCalls?: unknown; message?: { toolCalls: { arguments: string }[] } })
      .find((e) => e.type === "assistant_message" && e.message!.toolCalls.length > 0);
    expect(asked!.message!.toolCalls.map((c) => JSON.parse(c.arguments))).toEqual(cases.map((c) => c.call.args));

    const explain = cli(["permissions", "explain", "--rules", rules, "--tool", "shell_exec", "--args", JSON.stringify({ command: "c\u0430t x\b\u2066" })]);
    expect(explain.status, explain.stderr).toBe(0);
    expect(printable(explain.stdout)).not.toMatch(INVISIBLE);
    expect(explain.stdout).toContain('"c\u0430t x\\\\b\\u2066"');
    expect(explain.stdout).toContain(
      "! contains 2 invisible characters, shown as escapes (\\b, \\u2066)\n! look-alike letters: c\\u0430t (Latin and Cyrillic)",
    );
  });
});
