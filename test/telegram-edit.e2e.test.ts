import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Log, TelegramBot } from "@gatehouse/telegram";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Cluster, Events, waitUntil } from "./support/cluster.js";
import { botServerConfig, FakeBotApi, startTestBot, type ChatMessage } from "./support/fake-bot-api.js";

const ADA = 111;
const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
const steps = [
  { when: { userContains: "clean" }, text: "", toolCalls: [shell("rm -rf build dist")] },
  { when: { resultContains: "changed" }, text: "Told: {{lastResult}}" },
  { when: { userContains: "list" }, text: "", toolCalls: [shell("ls dist")] },
  { when: { resultContains: "" }, text: "Listed." },
  { when: { userContains: "clean" }, text: "", toolCalls: [shell("rm -rf build dist")] },
  { when: { resultContains: "" }, text: "Told: {{lastResult}}" },
];

let cluster: Cluster;
let api: FakeBotApi;
let bot: TelegramBot;
const quiet: Log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => quiet };

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-telegram-edit-"));
  fs.writeFileSync(path.join(dir, "scenario.json"), JSON.stringify({ name: "telegram-edit", steps }));
  cluster = await Cluster.start({ rules: `{ "shell_exec": { "*": "ask", "curl *": "deny" } }`, config: botServerConfig(path.join(dir, "scenario.json")) });
  api = await FakeBotApi.start();
  bot = await startTestBot(cluster, api, ADA, path.join(dir, "state.json"), quiet);
  api.userSends(ADA, "/new w1");
  await said("is current and followed");
}, 30_000);

afterAll(async () => {
  await bot?.stop();
  await api?.stop();
  await cluster?.stop();
});

const after = (m: ChatMessage) => (x: ChatMessage) => x.messageId > m.messageId;
const said = (text: string, since?: ChatMessage) =>
  api.waitForMessage(ADA, (m) => m.text.includes(text) && (!since || after(since)(m)), `a message with "${text}"`);
const cardFor = (command: string) =>
  api.waitForMessage(
    ADA,
    (m) => m.text.startsWith("<b>Approval needed</b>") && m.text.includes(command) && m.replyMarkup !== undefined,
    `the card for ${command}`,
  );
const buttons = (m: ChatMessage) => m.replyMarkup?.inline_keyboard?.flat().map((b) => b.text);

/** Makes build/ and dist/ afresh in the work folder. */
function folders() {
  for (const dir of ["build", "dist"]) fs.mkdirSync(path.join(cluster.workDir, dir), { recursive: true });
}

/** The session the chat made, and its events from the start. */
async function sessionEvents() {
  const client = cluster.client();
  const [session] = await client.session.list.query();
  return { client, id: session!.id, events: new Events(client, { sessionId: session!.id }) };
}

describe("editing a held call from Telegram by replying to its card", () => {
  it("a reply with a narrower command shows the edit against the original, and approving it removes only dist", async () => {
    folders();
    api.userSends(ADA, "please clean");
    const card = await cardFor("rm -rf build dist");
    expect(card.text).toContain("reply to this message with the edited command");
    const reply = api.userSends(ADA, "rm -rf dist", card.messageId);
    const edited = await said("<b>Edited call</b>", reply);
    expect(edited.text).toContain("<pre>- rm -rf build dist\n+ rm -rf dist</pre>");
    expect(edited.replyTo).toBe(card.messageId);
    expect(buttons(edited)).toEqual(["Approve edited", "Session: rm *", "Always: rm *"]);
    expect(await api.waitForAnswer(api.press(ADA, edited.messageId, api.button(edited, "Approve edited")))).toBe("Approved as edited (once).");
    await waitUntil(() => card.text.includes("Approved once by ada-telegram") && card.text.includes("<b>Edited</b>: it ran as"), 10_000, "the card to say so");
    await said("Told: The user changed this shell_exec call before approving it");
    expect(fs.existsSync(path.join(cluster.workDir, "dist"))).toBe(false);
    expect(fs.existsSync(path.join(cluster.workDir, "build"))).toBe(true);
  });

  it("an edit the gate denies is refused with the reason; a later edit replaces an earlier one's buttons; a critical edit runs only by its own button", async () => {
    folders();
    api.userSends(ADA, "please list");
    const card = await cardFor("ls dist");
    const denied = api.userSends(ADA, "curl http://127.0.0.1:9/x", card.messageId);
    expect((await said("Not approved:", denied)).text).toMatch(/^Not approved: the edited shell_exec call is denied: .*curl.*; the call is still pending$/);
    const first = await said("<b>Edited call</b>", api.userSends(ADA, "ls build", card.messageId));
    const critical = await said("<b>Edited call</b>", api.userSends(ADA, "dd if=/dev/zero of=/dev/null count=1", card.messageId));
    expect(critical.text).toContain("Critical: dd writes to a device");
    expect(buttons(critical)).toEqual(["Run the edited call once (critical)"]);
    expect(await api.waitForAnswer(api.press(ADA, first.messageId, api.button(first, "Approve edited")))).toBe(
      "A later edit replaced this one: use its buttons.",
    );
    expect(card.replyMarkup).toBeDefined();
    const s = await sessionEvents();
    expect(await api.waitForAnswer(api.press(ADA, critical.messageId, api.button(critical, "Run the edited call once")))).toBe("Approved as edited (once).");
    const started = await s.events.next("tool_call_started", (e) => e.arguments.includes("dd "));
    expect(started.arguments).toBe(JSON.stringify({ command: "dd if=/dev/zero of=/dev/null count=1" }));
    await said("Listed.", critical);
  });

  it("an edit raced against a plain approval from another client: exactly one applies, the other is told", async () => {
    folders();
    const s = await sessionEvents();
    const before = s.events.of("tool_approval_required").length;
    api.userSends(ADA, "please clean");
    const card = await cardFor("rm -rf build dist");
    await waitUntil(() => s.events.of("tool_approval_required").length > before, 5000, "the ask");
    const ask = s.events.of("tool_approval_required").at(-1)!;
    const edited = await said("<b>Edited call</b>", api.userSends(ADA, "rm -rf dist", card.messageId));
    const press = api.press(ADA, edited.messageId, api.button(edited, "Approve edited"));
    const plain = await s.client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId, digest: ask.digest }).then(
      (r) => r.applied,
      (err: { data?: { code?: string } }) => err.data?.code,
    );
    const answer = await api.waitForAnswer(press);
    await waitUntil(() => s.events.of("tool_approval_resolved").some((e) => e.approvalId === ask.approvalId), 5000, "the answer");
    const resolved = s.events.of("tool_approval_resolved").filter((e) => e.approvalId === ask.approvalId);
    expect(resolved).toHaveLength(1);
    const editWon = resolved[0]!.editedArguments !== undefined;
    expect([
      editWon ? "CONFLICT" : true,
      editWon ? "Approved as edited (once)." : expect.stringMatching(/^Not answered: approval \S+ was already answered \(approved by ada-terminal\)/),
    ]).toEqual([plain, answer]);
    await said("Told:", card);
    expect(fs.existsSync(path.join(cluster.workDir, "build"))).toBe(editWon);
    expect(fs.existsSync(path.join(cluster.workDir, "dist"))).toBe(false);
  });
});
