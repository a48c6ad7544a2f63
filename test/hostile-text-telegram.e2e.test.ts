import type { Log, TelegramBot } from "@gatehouse/telegram";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events, waitUntil } from "./support/cluster.js";
import { botServerConfig, FakeBotApi, startTestBot } from "./support/fake-bot-api.js";
import { HOSTILE_CASES, HOSTILE_FILES } from "./support/hostile-text.js";

const ADA = 111;
/** What a chat must never render as itself. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u;

/** A message's HTML as the chat shows it: tags gone, entities read, every run of blanks one space. */
const shownText = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
const words = (text: string) => text.replace(/\s+/g, " ");

const quiet: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => quiet };

let cluster: Cluster | undefined;
let api: FakeBotApi | undefined;
let bot: TelegramBot | undefined;
afterEach(async () => {
  await bot?.stop();
  await api?.stop();
  await cluster?.stop();
});

describe("hostile text in the Telegram bot", () => {
  it("shows every hidden character escaped and the mark on the card; the document holds the whole", { timeout: 180_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-telegram-hostile-"));
    const steps = [...HOSTILE_CASES.map((c) => ({ text: `Case: ${c.name}.`, toolCalls: [c.call] })), { text: "All asked." }];
    fs.writeFileSync(path.join(dir, "scenario.json"), JSON.stringify({ name: "hostile", steps }));
    cluster = await Cluster.start({
      rules: `{ "*": "ask", "read_file": "allow" }`,
      files: HOSTILE_FILES,
      config: botServerConfig(path.join(dir, "scenario.json")),
    });
    api = await FakeBotApi.start();
    bot = await startTestBot(cluster, api, ADA, path.join(dir, "state.json"), quiet);
    const client = cluster.client();
    const events = new Events(client, {});
    api.userSends(ADA, "/new w1");
    await api.waitForMessage(ADA, (m) => m.text.includes("is current and followed"), "the new session");
    api.userSends(ADA, "go");

    for (const [i, c] of HOSTILE_CASES.entries()) {
      await waitUntil(() => events.of("tool_approval_required").length > i, 20_000, `the approval of: ${c.name}`);
      const approval = events.of("tool_approval_required")[i]!;
      const cards = () => api!.botMessages(ADA).filter((m) => m.text.startsWith("<b>Approval needed</b>"));
      await waitUntil(() => cards().length > i, 20_000, `the card of: ${c.name}`);
      const card = shownText(cards()[i]!.text);
      expect(words(card), c.name).toContain(words(c.shown));
      expect(words(card), c.name).toContain(words(`⚠ ${c.mark}`));
      expect(card.replace(/\n/g, ""), c.name).not.toMatch(INVISIBLE);
      if (c.name.startsWith("thousands of spaces")) {
        const doc = await api.waitForMessage(ADA, (m) => m.document !== undefined, "the whole command as a document");
        expect(doc.document!.content).toBe(`echo ok${" ".repeat(3000)}; mv build .trash`);
      }
      if (c.name.startsWith("an edit whose diff")) {
        expect(card).toContain(`+fsmonitor = "mv build .trash"${"\\b".repeat(30)}editor = vim`);
      }
      expect((await client.tool.deny.mutate({ sessionId: approval.sessionId, approvalId: approval.approvalId })).applied).toBe(true);
    }
    await api.waitForMessage(ADA, (m) => m.text.includes("All asked."), "the end of the scenario");
    for (const m of api.botMessages(ADA)) expect(shownText(m.text).replace(/\n/g, "")).not.toMatch(INVISIBLE);
    events.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
