import fs from "node:fs";
import path from "node:path";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events, waitUntil, type EventOf } from "./support/cluster.js";

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

async function session(c: Cluster, client: GatehouseClient, steps: unknown[]) {
  const info = await client.session.create.mutate({ workerId: "w1", scenario: c.scenario("s", steps) });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  return { id: info.id, events };
}

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
const edit = (file: string, oldString: string, newString: string) => ({
  tool: "edit_file",
  args: { path: file, old_string: oldString, new_string: newString },
});
const GIT_CONFIG = "[core]\n\tbare = false\n";

/**
 * Approves every ask raised when the batch is decided (what the shell analysis makes of a link,
 * or the gate of a plain path into `.git`, is not under test here) and returns the first ask
 * of another call whose reason names where a link leads: the one raised just before it runs.
 */
async function askNaming(client: GatehouseClient, s: { id: string; events: Events }, leadsTo: RegExp, turn = 1) {
  let found: EventOf<"tool_approval_required"> | undefined;
  const approved = new Set<string>();
  await waitUntil(
    async () => {
      for (const a of s.events.of("tool_approval_required")) {
        if (a.toolName !== "shell_exec" && leadsTo.test(a.reason)) found ??= a;
        else if (!approved.has(a.approvalId)) {
          approved.add(a.approvalId);
          await client.tool.approve.mutate({ sessionId: s.id, approvalId: a.approvalId });
        }
      }
      return found !== undefined || s.events.of("turn_ended").length >= turn;
    },
    10_000,
    `an ask whose reason matches ${leadsTo}`,
  );
  return found;
}

describe("a decision holds for what actually runs", () => {
  it("a link made by an earlier call of the batch: the edit through it asks again, with the reason, and does not run unapproved", async () => {
    cluster = await Cluster.start({
      rules: `{"*": "ask", "shell_exec": "allow", "edit_file": "allow", "read_file": "allow"}`,
      files: { ".git/config": GIT_CONFIG, "notes.txt": "notes" },
    });
    const client = cluster.client();
    const s = await session(cluster, client, [
      {
        text: "Linking.",
        toolCalls: [
          shell("ln -s .git/config settings.ini"),
          edit("settings.ini", "bare = false", "bare = false\n\tfsmonitor = ./payload"),
          { tool: "read_file", args: { path: "notes.txt" } },
        ],
      },
      { text: "done" },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = (await askNaming(client, s, /\.git\/config/))!;
    expect(ask).toMatchObject({ toolName: "edit_file", batch: { index: 1, total: 3 } });
    expect(ask.reason).toMatch(/^decided again just before it ran: .*settings\.ini resolves to .*\/\.git\/config: /);
    expect(fs.lstatSync(path.join(cluster.workDir, "settings.ini")).isSymbolicLink()).toBe(true);
    expect(await client.tool.deny.mutate({ sessionId: s.id, approvalId: ask.approvalId })).toEqual({ applied: true });
    await s.events.next("turn_ended");
    expect(fs.readFileSync(path.join(cluster.workDir, ".git/config"), "utf8")).toBe(GIT_CONFIG);
    const results = s.events.of("tool_result");
    expect(results.map((r) => [r.toolName, r.outcome])).toEqual([
      ["shell_exec", "ok"],
      ["edit_file", "rejected"],
      ["read_file", "ok"],
    ]);
    // Only the call whose decision changed asked again: the read after it ran as decided.
    expect(s.events.of("tool_approval_required").filter((a) => a.toolName !== "shell_exec")).toHaveLength(1);
  });

  it("the issue's own spelling: `ln -s config .git/x`, then edit_file .git/x, in one batch", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow", "edit_file": "allow"}`, files: { ".git/config": GIT_CONFIG } });
    const client = cluster.client();
    const s = await session(cluster, client, [
      { text: "Linking.", toolCalls: [shell("ln -s config .git/x"), edit(".git/x", "bare = false", "bare = false\n\tfsmonitor = ./payload")] },
      { text: "done" },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const edited = await askNaming(client, s, /\.git\/config/);
    expect(edited).toMatchObject({ toolName: "edit_file" });
    expect(edited!.reason).toMatch(/\.git\/x (resolves|led) to .*\/\.git\/(config|x when the call was approved and leads to .*\/\.git\/config)/);
    await client.tool.deny.mutate({ sessionId: s.id, approvalId: edited!.approvalId });
    await s.events.next("turn_ended");
    expect(fs.readFileSync(path.join(cluster.workDir, ".git/config"), "utf8")).toBe(GIT_CONFIG);
  });

  it("the first call of a batch too: a link an earlier turn made is judged where it leads, and the mode does not let the edit through on its name", async () => {
    cluster = await Cluster.start({
      rules: `{"*": "ask", "shell_exec": "allow", "edit_file": "ask", "read_file": "allow"}`,
      files: { ".git/config": GIT_CONFIG, "notes.txt": "notes" },
    });
    const client = cluster.client();
    const info = await client.session.create.mutate({
      workerId: "w1",
      mode: "accept-edits",
      scenario: cluster.scenario("s", [
        { text: "Linking.", toolCalls: [shell("ln -s .git/config settings.ini")] },
        { text: "linked" },
        {
          text: "Editing.",
          toolCalls: [edit("settings.ini", "bare = false", "bare = false\n\tfsmonitor = ./payload"), { tool: "read_file", args: { path: "notes.txt" } }],
        },
        { text: "done" },
      ]),
    });
    const s = { id: info.id, events: new Events(client, { sessionId: info.id }) };
    await new Promise((r) => setTimeout(r, 100));
    await client.agent.prompt.mutate({ sessionId: s.id, text: "link" });
    // The link is the earlier turn's, approved there (what the gate makes of `ln` is not under test).
    expect(await askNaming(client, s, /^$/)).toBeUndefined();
    expect(fs.lstatSync(path.join(cluster.workDir, "settings.ini")).isSymbolicLink()).toBe(true);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "edit" });
    const ask = (await askNaming(client, s, /\.git\/config/, 2))!;
    expect(ask).toMatchObject({ toolName: "edit_file", batch: { index: 0, total: 2 } });
    expect(ask.reason).toMatch(/^decided again just before it ran: .*settings\.ini resolves to .*\/\.git\/config: /);
    await client.tool.deny.mutate({ sessionId: s.id, approvalId: ask.approvalId });
    await waitUntil(() => s.events.of("turn_ended").length === 2, 10_000, "the second turn to end");
    expect(fs.readFileSync(path.join(cluster.workDir, ".git/config"), "utf8")).toBe(GIT_CONFIG);
    expect(s.events.of("tool_result").map((r) => [r.toolName, r.outcome])).toEqual([
      ["shell_exec", "ok"],
      ["edit_file", "rejected"],
      ["read_file", "ok"],
    ]);
  });

  it("a read through a link made earlier in the batch is judged where it leads: a read rule that asks there asks", async () => {
    cluster = await Cluster.start({
      rules: `{"*": "ask", "shell_exec": "allow", "read_file": {"*": "allow", "private/**": "ask"}}`,
      files: { "private/key.txt": "the private key" },
    });
    const client = cluster.client();
    const s = await session(cluster, client, [
      { text: "Reading.", toolCalls: [shell("ln -s private/key.txt notes.txt"), { tool: "read_file", args: { path: "notes.txt" } }] },
      { text: "done" },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = (await askNaming(client, s, /private\/key\.txt/))!;
    expect(ask).toMatchObject({ toolName: "read_file" });
    expect(ask.reason).toMatch(/notes\.txt resolves to .*\/private\/key\.txt/);
    await client.tool.deny.mutate({ sessionId: s.id, approvalId: ask.approvalId });
    await s.events.next("turn_ended");
    expect(
      s.events
        .of("tool_result")
        .map((r) => r.output)
        .join("\n"),
    ).not.toContain("the private key");
  });

  it("the rules as they are when it runs: a rule changed while an earlier call of the batch waited for a person holds for the later calls", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "read_file": "allow"}`, files: { "notes.txt": "private notes" } });
    const client = cluster.client();
    const s = await session(cluster, client, [
      {
        text: "Looking.",
        toolCalls: [
          { tool: "glob", args: { pattern: "*" } },
          { tool: "read_file", args: { path: "notes.txt" } },
        ],
      },
      { text: "done" },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = await s.events.next("tool_approval_required");
    expect(ask.toolName).toBe("glob");
    fs.writeFileSync(cluster.rulesFile, `{"*": "ask", "read_file": {"*": "allow", "notes.txt": "deny"}}`);
    await client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId });
    await s.events.next("turn_ended");
    const read = s.events.of("tool_result")[1]!;
    expect(read).toMatchObject({ toolName: "read_file", outcome: "denied" });
    expect(read.output).toMatch(/decided again just before it ran/);
    expect(read.output).not.toContain("private notes");
  });

  it("an approval covers the file it was shown: a file changed between the approval and the run asks again with the new diff", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "read_file": "allow"}`, files: { "notes.txt": "alpha\nbeta\n" } });
    const client = cluster.client();
    const s = await session(cluster, client, [{ text: "Editing.", toolCalls: [edit("notes.txt", "beta", "BETA")] }, { text: "done" }]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const first = await s.events.next("tool_approval_required");
    expect(first.presentation?.content).not.toContain("injected");
    // Another process changes the file while the person reads the diff.
    fs.writeFileSync(path.join(cluster.workDir, "notes.txt"), "alpha\nbeta\ninjected = true\n");
    await client.tool.approve.mutate({ sessionId: s.id, approvalId: first.approvalId });
    const second = await s.events.next("tool_approval_required", (e) => e.approvalId !== first.approvalId);
    expect(second.callId).toBe(first.callId);
    expect(second.reason).toMatch(/what was approved changed before the edit_file call ran/);
    expect(second.presentation?.content).toContain("injected = true");
    expect(s.events.of("tool_call_started")).toHaveLength(0);
    expect(fs.readFileSync(path.join(cluster.workDir, "notes.txt"), "utf8")).toBe("alpha\nbeta\ninjected = true\n");
    // Approved as it is now, it runs.
    await client.tool.approve.mutate({ sessionId: s.id, approvalId: second.approvalId });
    await s.events.next("turn_ended");
    expect(s.events.of("tool_result")[0]).toMatchObject({ toolName: "edit_file", outcome: "ok" });
    expect(fs.readFileSync(path.join(cluster.workDir, "notes.txt"), "utf8")).toBe("alpha\nBETA\ninjected = true\n");
  });

  it("an approval covers the path it was shown: a file that became a link meanwhile asks again, naming where it leads", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "read_file": "allow"}`, files: { "notes.txt": "alpha\nbeta\n", "other.txt": "alpha\nbeta\n" } });
    const client = cluster.client();
    const s = await session(cluster, client, [{ text: "Editing.", toolCalls: [edit("notes.txt", "beta", "BETA")] }, { text: "done" }]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const first = await s.events.next("tool_approval_required");
    const notes = path.join(cluster.workDir, "notes.txt");
    fs.rmSync(notes);
    fs.symlinkSync("other.txt", notes);
    await client.tool.approve.mutate({ sessionId: s.id, approvalId: first.approvalId });
    const second = await s.events.next("tool_approval_required", (e) => e.approvalId !== first.approvalId);
    expect(second.reason).toMatch(/notes\.txt led to .*\/notes\.txt when the call was approved and leads to .*\/other\.txt now/);
    await client.tool.deny.mutate({ sessionId: s.id, approvalId: second.approvalId });
    await s.events.next("turn_ended");
    expect(fs.readFileSync(path.join(cluster.workDir, "other.txt"), "utf8")).toBe("alpha\nbeta\n");
  });

  it("an approved call whose file did not change runs without a second question", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "read_file": "allow"}`, files: { "notes.txt": "alpha\nbeta\n" } });
    const client = cluster.client();
    const s = await session(cluster, client, [{ text: "Editing.", toolCalls: [edit("notes.txt", "beta", "BETA"), shell("echo after")] }, { text: "done" }]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    await waitUntil(() => s.events.of("tool_approval_required").length === 2, 5000, "both asks");
    for (const a of s.events.of("tool_approval_required")) await client.tool.approve.mutate({ sessionId: s.id, approvalId: a.approvalId });
    await s.events.next("turn_ended");
    expect(s.events.of("tool_approval_required")).toHaveLength(2);
    expect(s.events.of("tool_result").map((r) => r.outcome)).toEqual(["ok", "ok"]);
    expect(fs.readFileSync(path.join(cluster.workDir, "notes.txt"), "utf8")).toBe("alpha\nBETA\n");
  });
});
