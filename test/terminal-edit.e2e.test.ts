import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLIENT_TOKEN, Cluster, Events } from "./support/cluster.js";
import { Tmux } from "./support/tmux.js";

vi.setConfig({ testTimeout: 60_000 });

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const RULES = `{ "shell_exec": { "*": "ask", "curl *": "deny" } }\n`;

/** What each test started, stopped after it in the reverse order. */
const started: (() => unknown)[] = [];
afterEach(async () => {
  for (const stop of started.splice(0).reverse()) await stop();
});
const tmuxRunning = (command: string) => {
  const t = new Tmux(command);
  started.push(() => t.kill());
  return t;
};

/** A work folder with build/ and dist/, the rules of worker `local`, a scenario, and an editor that writes what `next` holds. */
function setup(steps: unknown[]) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-term-edit-")));
  started.push(() => fs.rmSync(root, { recursive: true, force: true }));
  const work = path.join(root, "work");
  for (const dir of ["build", "dist"]) fs.mkdirSync(path.join(work, dir), { recursive: true });
  fs.mkdirSync(path.join(root, "data", "workers", "local"), { recursive: true });
  fs.writeFileSync(path.join(root, "data", "workers", "local", "permissions.jsonc"), RULES);
  const scenario = path.join(root, "scenario.json");
  fs.writeFileSync(scenario, JSON.stringify({ name: "terminal-edit", steps }));
  const next = path.join(root, "next");
  const editor = path.join(root, "editor.sh");
  fs.writeFileSync(editor, `#!/bin/sh\ncat "${next}" > "$1"\n`, { mode: 0o755 });
  return { work, data: path.join(root, "data"), scenario, next, editor };
}

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
const command = (s: ReturnType<typeof setup>) => `node ${BIN} --dir ${s.work} --data-dir ${s.data} --scenario ${s.scenario}`;

describe("the terminal's edit of a held call", () => {
  it("e in the line editor narrows rm -rf build dist to rm -rf dist: only dist goes, and the transcript and the model say so", async () => {
    const s = setup([{ text: "Cleaning.", toolCalls: [shell("rm -rf build dist")] }, { text: "The model received: {{lastResult}}" }]);
    const t = tmuxRunning(command(s));
    await t.waitFor(/a prompt, !command/, "the input line");
    t.type("go");
    t.keys("Enter");
    await t.waitFor(/\$ rm -rf build dist[\s\S]*v view +e edit/, "the approval with its edit key");
    t.keys("e");
    await t.waitFor(/edit the command \(Enter checks it, Esc goes back\): rm -rf build dist/, "the line editor");
    for (let i = 0; i < 10; i++) t.keys("BSpace");
    t.type("dist");
    t.keys("Enter");
    await t.waitFor(/- rm -rf build dist[\s│]*\+ rm -rf dist[\s│]*why it asks: [\s\S]*y once +s session or a always \(rm \*\)/, "the edited call");
    t.keys("y");
    await t.waitFor(/✓ done shell_exec rm -rf dist +· approved by [^\n]*, edited from: shell_exec rm -rf build dist/, "the edited call's line");
    await t.waitFor(/The model received: The user changed this shell_exec call before approving it/, "the model told");
    expect(fs.existsSync(path.join(s.work, "dist"))).toBe(false);
    expect(fs.existsSync(path.join(s.work, "build"))).toBe(true);
  });

  it("with $EDITOR: an edit the gate denies says why and keeps the call; a critical edit needs Y", async () => {
    const s = setup([{ text: "Listing.", toolCalls: [shell("ls dist")] }, { text: "The model received: {{lastResult}}" }]);
    fs.writeFileSync(s.next, "curl http://127.0.0.1:9/x\n");
    const t = tmuxRunning(`EDITOR=${s.editor} ${command(s)}`);
    await t.waitFor(/a prompt, !command/, "the input line");
    t.type("go");
    t.keys("Enter");
    await t.waitFor(/\$ ls dist[\s\S]*e edit/, "the approval");
    t.keys("e");
    await t.waitFor(/not approved: the edited shell_exec call is denied: [^\n]*curl[\s\S]*e opens the editor again +Esc back/, "the denied edit");
    fs.writeFileSync(s.next, "dd if=/dev/zero of=/dev/null count=1\n");
    t.keys("e");
    await t.waitFor(
      /\+ dd if=\/dev\/zero of=\/dev\/null count=1[\s\S]*critical: dd writes to a device[\s\S]*Y run it once, confirming the critical pattern/,
      "the critical edit",
    );
    t.keys("y");
    await new Promise((r) => setTimeout(r, 500));
    expect(t.screen()).not.toMatch(/✓ done shell_exec dd/);
    t.keys("Y");
    await t.waitFor(
      /✓ done shell_exec dd if=\/dev\/zero of=\/dev\/null count=1 +· approved by [^\n]*, edited from: shell_exec ls dist/,
      "the critical edit run",
    );
  });

  it("another client's plain approval that lands while the person edits: the original runs, the edit is dropped, the transcript says who approved", async () => {
    const cluster = await Cluster.start({ rules: `{"shell_exec": "ask"}`, files: { "build/a.o": "a", "dist/app.js": "app" } });
    started.push(() => cluster.stop());
    const client = cluster.client();
    const info = await client.session.create.mutate({
      workerId: "w1",
      scenario: cluster.scenario("race", [{ text: "Cleaning.", toolCalls: [shell("rm -rf build dist")] }, { text: "finished" }]),
    });
    const events = new Events(client, { sessionId: info.id });
    const t = tmuxRunning(`node ${BIN} connect --server ${cluster.url} --token ${CLIENT_TOKEN} --session ${info.id}`);
    await t.waitFor(/· connected/, "the client to connect");
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    const ask = await events.next("tool_approval_required");
    await t.waitFor(/v view +e edit/, "the approval");
    t.keys("e");
    await t.waitFor(/edit the command/, "the line editor");
    for (let i = 0; i < 10; i++) t.keys("BSpace");
    t.type("dist");
    t.keys("Enter");
    await t.waitFor(/\+ rm -rf dist[\s\S]*y once/, "the edited call");
    expect(await client.tool.approve.mutate({ sessionId: info.id, approvalId: ask.approvalId, digest: ask.digest })).toEqual({ applied: true });
    await t.waitFor(/✓ done shell_exec rm -rf build dist +· approved by ada[\s\S]*finished/, "the original run, approved elsewhere");
    t.keys("y");
    await new Promise((r) => setTimeout(r, 500));
    expect(t.screen()).not.toMatch(/edited from|\+ rm -rf dist/);
    expect(events.of("tool_call_started").map((e) => e.arguments)).toEqual([JSON.stringify({ command: "rm -rf build dist" })]);
    expect(fs.existsSync(path.join(cluster.workDir, "build"))).toBe(false);
  });
});
