import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTelegramBot, type Log, type TelegramBot } from "@gatehouse/telegram";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Cluster, CLIENT_TOKEN, waitUntil } from "./support/cluster.js";
import { BOT_USER_TOKEN, botServerConfig, FakeBotApi, type ChatMessage } from "./support/fake-bot-api.js";
import { ServerProcess } from "./support/server-process.js";

const ADA = 111;
const STRANGER = 999;
const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
const LONG = Array.from({ length: 500 }, (_, i) => `line ${i + 1} of the new notes`).join("\n");

const steps = [
  { when: { userContains: "echo" }, text: "Running echo.", toolCalls: [shell("echo approved-once")] },
  { text: "Done one." },
  { when: { userContains: "list" }, text: "", toolCalls: [shell("ls -la")] },
  { text: "Listed." },
  { when: { userContains: "device" }, text: "", toolCalls: [shell("dd if=/dev/zero of=/dev/null count=1")] },
  { text: "Wrote to the device." },
  { when: { userContains: "write" }, text: "", toolCalls: [{ tool: "write_file", args: { path: "notes.txt", content: LONG } }] },
  { when: { resultContains: "docs" }, text: "I was told: {{lastResult}}" },
  { when: { userContains: "other" }, text: "", toolCalls: [shell("echo other")] },
  { text: "Done other." },
  { when: { userContains: "again" }, text: "", toolCalls: [shell("echo again")] },
  { text: "Done again." },
  { when: { userContains: "more" }, text: "", toolCalls: [shell("printf more")] },
  { text: "Done more." },
];

let cluster: Cluster;
let api: FakeBotApi;
let bot: TelegramBot;
let stateFile: string;
const logs: { msg: string; [k: string]: unknown }[] = [];
const record = (msg: string, fields?: Record<string, unknown>) => void logs.push({ msg, ...fields });
const capture: Log = { debug: record, info: record, warn: record, error: record, child: () => capture };

const startBot = () =>
  startTelegramBot({
    url: cluster.url,
    botToken: api.token,
    apiRoot: api.apiRoot,
    users: [{ id: ADA, token: BOT_USER_TOKEN }],
    stateFile,
    pollSeconds: 1,
    followFlushMs: 50,
    log: capture,
  });

const cards = () => api.botMessages(ADA).filter((m) => m.text.startsWith("<b>Approval needed</b>"));
const cardFor = (command: string) =>
  api.waitForMessage(ADA, (m) => m.text.startsWith("<b>Approval needed</b>") && m.text.includes(command), `the approval card for ${command}`);
const answered = (card: ChatMessage, outcome: string) =>
  waitUntil(() => card.text.includes(outcome) && card.replyMarkup === undefined, 10_000, `the card to say "${outcome}" without buttons`);
const said = (text: string) => api.waitForMessage(ADA, (m) => m.text.includes(text), `a message with "${text}"`);

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-telegram-"));
  stateFile = path.join(dir, "state.json");
  fs.writeFileSync(path.join(dir, "scenario.json"), JSON.stringify({ name: "telegram", steps }));
  cluster = await Cluster.start({
    rules: `{ "*": "ask", "read_file": "allow" }`,
    files: { "README.md": "hello from the project\n" },
    config: botServerConfig(path.join(dir, "scenario.json")),
  });
  api = await FakeBotApi.start();
  bot = await startBot();
}, 30_000);

afterAll(async () => {
  await bot?.stop();
  await api?.stop();
  await cluster?.stop();
});

describe("the Telegram bot against a real server and a fake Bot API", () => {
  it("refuses a user who is not on the list, and logs it", async () => {
    api.userSends(STRANGER, "/sessions");
    const refusal = await api.waitForMessage(STRANGER, () => true, "a refusal");
    expect(refusal.text).toContain("private");
    expect(refusal.text).toContain(String(STRANGER));
    expect(logs.find((l) => l.userId === STRANGER)?.msg).toMatch(/refused/);
  });

  it("lists workers, starts a session, and approves a call once", async () => {
    api.userSends(ADA, "/workers");
    expect((await said("w1")).text).toContain("connected");
    api.userSends(ADA, "/new w1");
    await said("is current and followed");
    api.userSends(ADA, "please echo");
    const card = await cardFor("echo approved-once");
    expect(card.text).toContain("Why:");
    expect(card.text).toContain("$ echo approved-once");
    expect(card.replyMarkup?.inline_keyboard?.flat().map((b) => b.text)).toEqual(["Approve", "Session: echo *", "Always: echo *", "Deny"]);
    const press = api.press(ADA, card.messageId, api.button(card, "Approve"));
    expect(await api.waitForAnswer(press)).toBe("Approved (once).");
    await answered(card, "Approved once by ada-telegram");
    await said("✓ shell_exec");
    await said("Done one.");
    await said("— turn completed");
  });

  it("saves the pattern shown on Always into the permissions file", async () => {
    api.userSends(ADA, "/prompt list the files");
    const card = await cardFor("ls -la");
    expect(card.text).toContain("Always would save: <code>ls *</code>");
    api.press(ADA, card.messageId, api.button(card, "Always: ls *"));
    await answered(card, "Approved always by ada-telegram");
    await said("Listed.");
    expect(fs.readFileSync(cluster.rulesFile, "utf8")).toContain('"ls *": "allow"');
  });

  it("offers a critical call once only: Approve and Deny, and the card says why", async () => {
    api.userSends(ADA, "write to the device");
    const card = await cardFor("dd if=/dev/zero of=/dev/null");
    expect(card.text).toContain("<i>Critical: approve once only.</i>");
    expect(card.replyMarkup?.inline_keyboard?.flat().map((b) => b.text)).toEqual(["Approve", "Deny"]);
    const press = api.press(ADA, card.messageId, api.button(card, "Approve"));
    expect(await api.waitForAnswer(press)).toBe("Approved (once).");
    await answered(card, "Approved once by ada-telegram");
    await said("Wrote to the device.");
  });

  it("sends a long diff as a document, and denies with the feedback replied", async () => {
    api.userSends(ADA, "write the notes");
    const card = await cardFor("write_file notes.txt");
    expect(card.text).toContain("+line 1 of the new notes");
    expect(card.text).toContain("follows as a file");
    const doc = await api.waitForMessage(ADA, (m) => m.document !== undefined && m.replyTo === card.messageId, "the whole diff as a document");
    expect(doc.document!.fileName).toMatch(/write_file\.diff$/);
    expect(doc.document!.content).toContain("+line 500 of the new notes");

    api.press(ADA, card.messageId, api.button(card, "Deny"));
    const prompt = await api.waitForMessage(ADA, (m) => m.replyMarkup?.force_reply === true, "the feedback prompt");
    expect(card.replyMarkup?.inline_keyboard?.flat().map((b) => b.text)).toEqual(["Deny without feedback", "Deny and end the turn", "Back"]);
    api.userSends(ADA, "put them under docs/ instead", prompt.messageId);
    await answered(card, "Denied by ada-telegram</b>: “put them under docs/ instead”");
    await said("I was told: ToolRejectedError");
    expect(fs.existsSync(path.join(cluster.workDir, "notes.txt"))).toBe(false);
  });

  it("edits a card answered from another client and drops its buttons", async () => {
    const terminal = cluster.client();
    api.userSends(ADA, "other");
    const card = await cardFor("echo other");
    const approve = api.button(card, "Approve");
    const approvalId = await pendingApproval(terminal);
    const session = (await terminal.session.list.query())[0]!;
    expect((await terminal.tool.approve.mutate({ sessionId: session.id, approvalId })).applied).toBe(true);
    await answered(card, "Approved once by ada-terminal");
    const late = api.press(ADA, card.messageId, approve);
    expect(await api.waitForAnswer(late)).toBe("Already answered.");
    await said("Done other.");
  });

  it("denies hard from the feedback question: the rest of the batch is rejected and the turn ends", async () => {
    const terminal = cluster.client();
    const scenario = cluster.scenario("batch", [{ text: "", toolCalls: [shell("echo one"), shell("echo two")] }, { text: "after the batch" }]);
    const session = await terminal.session.create.mutate({ workerId: "w1", scenario });
    api.userSends(ADA, `/use ${session.id.slice(0, 10)}`);
    await said(`Session <code>${session.id.slice(0, 8)}</code> is current and followed.`);
    api.userSends(ADA, "go");
    const first = await cardFor("echo one");
    const second = await cardFor("echo two");
    expect(first.text).toContain("Call 1 of 2 in this batch");
    expect(second.text).toContain("Call 2 of 2 in this batch");
    api.press(ADA, first.messageId, api.button(first, "Deny"));
    await waitUntil(() => first.replyMarkup?.inline_keyboard?.flat().some((b) => b.text === "Deny and end the turn") === true, 10_000, "the deny choices");
    api.press(ADA, first.messageId, api.button(first, "Deny and end the turn"));
    await answered(first, "Denied by ada-telegram");
    await waitUntil(() => second.replyMarkup === undefined && /Denied|Cancelled/.test(second.text), 10_000, "the rest of the batch to be answered");
    await said("— turn rejected");
  });

  it("follows a subagent of a followed session, and asks for its task", async () => {
    const terminal = cluster.client();
    const scenario = cluster.scenario(
      "delegate",
      [{ text: "", toolCalls: [{ tool: "task", args: { agent: "explore", prompt: "look around" } }] }, { text: "parent done" }],
      {
        explore: [{ text: "", toolCalls: [{ tool: "read_file", args: { path: "README.md" } }] }, { text: "found the readme" }],
      },
    );
    const session = await terminal.session.create.mutate({ workerId: "w1", scenario });
    api.userSends(ADA, `/use ${session.id}`);
    await said(`Session <code>${session.id.slice(0, 8)}</code> is current and followed.`);
    api.userSends(ADA, "delegate");
    const card = await cardFor("task explore: look around");
    api.press(ADA, card.messageId, api.button(card, "Approve"));
    await said("subagent explore started");
    const line = await said("▸ read_file README.md");
    expect(line.text).not.toContain(`<code>${session.id.slice(0, 8)}</code> ▸ read_file`);
    await said("💬 found the readme");
    await said("💬 parent done");
  });

  it("aborts a turn (its card says cancelled), changes the mode, and switches back to a session by its id prefix", async () => {
    const first = api.botMessages(ADA).find((m) => m.text.includes("is current and followed"))!;
    const firstId = /<code>([\w-]+)<\/code>/.exec(first.text)![1]!;
    api.userSends(ADA, "/new w1 accept-edits");
    const second = await said("(accept-edits) is current and followed");
    api.userSends(ADA, "echo in the second session");
    const card = await api.waitForMessage(
      ADA,
      (m) => m.text.startsWith("<b>Approval needed</b>") && m.text.includes(/<code>([\w-]+)<\/code>/.exec(second.text)![1]!),
      "a card of the second session",
    );
    api.userSends(ADA, "/abort");
    await said("Aborted the turn of session");
    await answered(card, "Cancelled");
    await said("— turn aborted");
    api.userSends(ADA, "/mode read-only");
    await said("is now in mode read-only");
    await said("mode: read-only");
    api.userSends(ADA, "/mode sideways");
    await said('"sideways" is not a mode');
    api.userSends(ADA, `/use ${firstId.slice(0, 5)}`);
    await said(`Session <code>${firstId}</code> is current and followed.`);
    api.userSends(ADA, "/sessions");
    const list = await said("read-only · idle (followed)");
    expect(list.text).toContain(`<code>${firstId}</code> on w1 · general · default · idle (current, followed)`);
  });

  it("survives its own restart: a pending card is not sent twice, and an answer given meanwhile shows", async () => {
    api.userSends(ADA, "again");
    const card = await cardFor("echo again");
    await bot.stop();
    bot = await startBot();
    await new Promise((r) => setTimeout(r, 500));
    await bot.idle();
    expect(cards().filter((m) => m.text.includes("echo again"))).toHaveLength(1);
    api.press(ADA, card.messageId, api.button(card, "Session"));
    await answered(card, "Approved for this session by ada-telegram");
    await said("Done again.");

    const terminal = cluster.client();
    api.userSends(ADA, "more");
    const second = await cardFor("printf more");
    await bot.stop();
    const session = (await terminal.session.list.query())[0]!;
    expect((await terminal.tool.approve.mutate({ sessionId: session.id, approvalId: await pendingApproval(terminal) })).applied).toBe(true);
    bot = await startBot();
    await answered(second, "Approved once by ada-terminal");
    await said("Done more.");
    expect(cards().filter((m) => m.text.includes("printf more"))).toHaveLength(1);
  });

  it("survives a restart of the server: a card pending before it is still answered, new approvals arrive", async () => {
    const sessionsStarted = () => api.botMessages(ADA).filter((m) => m.text.includes("is current and followed")).length;
    const echoCards = () => cards().filter((m) => m.text.includes("echo approved-once")).length;
    const [started, carded] = [sessionsStarted(), echoCards()];
    api.userSends(ADA, "/new w1");
    await waitUntil(() => sessionsStarted() === started + 1, 10_000, "a second session");
    api.userSends(ADA, "echo before the restart");
    const before = await waitUntil(() => echoCards() === carded + 1, 10_000, "a card in the second session").then(() => cards().at(-1)!);
    await cluster.restartServer();
    await waitUntil(() => logs.some((l) => /lost the server/.test(l.msg)), 10_000, "the bot to notice");
    const probe = cluster.client();
    await waitUntil(async () => (await probe.workers.list.query().catch(() => [])).some((w) => w.connected), 20_000, "the worker to reconnect");
    // The server kept the approval: the card still answers it.
    api.press(ADA, before.messageId, api.button(before, "Approve"));
    await answered(before, "Approved once by ada-telegram");
    api.userSends(ADA, "/new w1");
    await waitUntil(() => sessionsStarted() === started + 2, 10_000, "a session on the new server");
    api.userSends(ADA, "echo after the restart");
    await waitUntil(() => echoCards() === carded + 2, 10_000, "a card from the new server");
    expect(api.unknownMethods).toEqual([]);
  }, 60_000);
});

describe("gatehouse telegram, and the bot inside the server", () => {
  const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");

  it("runs as its own process with --server, --token and --users, and stops on SIGTERM", async () => {
    const own = await FakeBotApi.start();
    const state = path.join(path.dirname(stateFile), "cli-state.json");
    const args = ["telegram", "--server", cluster.url, "--token", CLIENT_TOKEN, "--users", "222", "--state", state, "--api-root", own.apiRoot];
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TELEGRAM_BOT_TOKEN: own.token } });
    try {
      own.userSends(222, "/workers");
      await own.waitForMessage(222, (m) => m.text.includes("<code>w1</code> connected"), "the worker list", 15_000);
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(fs.existsSync(state)).toBe(true);
    } finally {
      child.kill("SIGKILL");
      await own.stop();
    }
  }, 30_000);

  it("starts inside the server from the telegram section of its config; a card that times out says so", async () => {
    const own = await FakeBotApi.start();
    const embedded = await Cluster.start({
      rules: `{ "*": "ask" }`,
      approvalTimeoutMs: 1500,
      config: { telegram: { users: [{ id: 333, token: CLIENT_TOKEN }], apiRoot: own.apiRoot, botTokenEnv: "GH_TEST_BOT_TOKEN" } },
      env: { GH_TEST_BOT_TOKEN: own.token },
    });
    try {
      own.userSends(333, "/workers");
      expect((await own.waitForMessage(333, () => true, "the worker list", 15_000)).text).toContain("<code>w1</code> connected");
      own.userSends(444, "/workers");
      expect((await own.waitForMessage(444, () => true, "a refusal")).text).toContain("private");

      const client = embedded.client();
      const session = await client.session.create.mutate({
        workerId: "w1",
        scenario: embedded.scenario("slow", [{ text: "", toolCalls: [shell("echo late")] }, { text: "ok" }]),
      });
      await client.agent.prompt.mutate({ sessionId: session.id, text: "go" });
      const card = await own.waitForMessage(333, (m) => m.text.includes("echo late"), "the card");
      expect(card.replyMarkup?.inline_keyboard).toBeDefined();
      await waitUntil(() => card.text.includes("Timed out") && card.replyMarkup === undefined, 10_000, "the card to time out");
    } finally {
      await embedded.stop();
      await own.stop();
    }
  }, 30_000);

  it("inside a server that speaks TLS, trusts the server's own certificate", async () => {
    const own = await FakeBotApi.start();
    process.env.GH_TEST_TLS_BOT_TOKEN = own.token;
    const tls = await ServerProcess.start({
      tls: "self-signed",
      clientTokens: [{ token: CLIENT_TOKEN, name: "ada", role: "admin" }],
      telegram: { users: [{ id: 555, token: CLIENT_TOKEN }], apiRoot: own.apiRoot, botTokenEnv: "GH_TEST_TLS_BOT_TOKEN" },
    });
    try {
      expect(tls.url).toMatch(/^wss:/);
      own.userSends(555, "/workers");
      expect((await own.waitForMessage(555, () => true, "an answer over wss", 15_000)).text).toBe("No worker has registered with the server.");
    } finally {
      delete process.env.GH_TEST_TLS_BOT_TOKEN;
      await tls.stop();
      await own.stop();
    }
  }, 30_000);
});

async function pendingApproval(client: ReturnType<Cluster["client"]>): Promise<string> {
  let id: string | undefined;
  const sub = client.agent.onEvents.subscribe(
    {},
    { onData: (d) => ((d.data as { type: string }).type === "tool_approval_required" ? (id = (d.data as { approvalId: string }).approvalId) : undefined) },
  );
  await waitUntil(() => id !== undefined, 5000, "a pending approval");
  sub.unsubscribe();
  return id!;
}
