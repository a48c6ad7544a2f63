import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BotState } from "../src/bot-state.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-bot-state-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const card = (approvalId: string) => ({ chatId: 1, approvalId, sessionId: "s1", text: "card", patterns: [] });

describe("the bot's state file", () => {
  it("keeps cards, follows and the last event across a reload, and forgets old closed cards", () => {
    const file = path.join(dir, "state.json");
    const state = BotState.load(file);
    const open = state.reserve(card("open"));
    state.update(open, { messageId: 7 });
    state.follow(1, "s1", true);
    state.setLastEventId("conn", "42");
    expect(BotState.load(file).lastEventId("conn")).toBeUndefined();
    for (let i = 0; i < 205; i++) state.update(state.reserve(card(`closed-${i}`)), { status: "closed" });
    const again = BotState.load(file);
    expect(again.findApproval(1, "open")).toMatchObject({ messageId: 7, status: "pending" });
    expect(again.repliedApproval(1, 7)?.approvalId).toBe("open");
    expect(again.chat(1)).toEqual({ current: "s1", follows: ["s1"] });
    expect(again.lastEventId("conn")).toBe("42");
    expect(again.findApproval(1, "closed-0")).toBeUndefined();
    expect(again.findApproval(1, "closed-204")).toBeDefined();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("refuses a file it cannot read, naming it, instead of starting afresh and repeating every card", () => {
    const file = path.join(dir, "broken.json");
    fs.writeFileSync(file, "{ not json");
    expect(() => BotState.load(file)).toThrow(`${file}: not JSON`);
    fs.writeFileSync(file, JSON.stringify({ version: 1, nextKey: "x" }));
    expect(() => BotState.load(file)).toThrow(/nextKey/);
  });
});
