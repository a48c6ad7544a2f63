import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Cluster, Events, waitUntil } from "./support/cluster.js";
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
    for (const c of HOSTILE_CASES) {
      await showing([c.shown, `⚠ ${c.mark}`, "n deny with feedback"], `the approval of: ${c.name}`);
      if (c.name.startsWith("thousands of spaces")) {
        t.keys("v");
        await showing(["lines 1-1 of 1 (j/k", "echo ok", "; mv build .trash"], "the pager with the whole command");
        const body = t.visible().split("q to go back)")[1]!;
        expect(body).toMatch(/^\s*echo ok\n(\s*\n){10,}\s*; mv build \.trash\n/);
        expect(body).not.toContain("⟦");
        t.keys("q");
        await showing([c.shown, "n deny with feedback"], "the prompt again");
      }
      t.keys("n");
      await showing(["feedback for the model"], "the feedback line");
      // Enter may come before the line editor listens (its frame is drawn first): pressed until it is taken.
      let pressed = 0;
      await waitUntil(
        () => {
          if (!t.visible().includes("feedback for the model")) return true;
          if (Date.now() - pressed > 500) {
            t.keys("Enter");
            pressed = Date.now();
          }
          return false;
        },
        20_000,
        "the denial",
      );
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
        { toolCalls: [{ tool: "shell_exec", args: { command: "echo shown-two" } }] },
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
  });
});
