import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BotStateError } from "./errors.js";

const ApprovalRecord = z.object({
  /** Short, for callback data (Telegram allows 64 bytes). */
  key: z.string(),
  chatId: z.number(),
  approvalId: z.string(),
  sessionId: z.string(),
  messageId: z.number(),
  /** The card as sent (HTML), so that an outcome can be added below it. */
  text: z.string(),
  patterns: z.array(z.string()),
  /** The digest of the approval as the card shows it, sent back with an approval. */
  digest: z.string().optional(),
  /** `denying`: Deny was pressed and a reply with feedback is awaited. */
  status: z.enum(["pending", "denying", "closed"]),
  /** The message that asks for feedback, while denying. */
  promptId: z.number().nullable(),
  /** Whether the card shows the server's word on how the approval ended. */
  resolved: z.boolean(),
  /** The call as asked (its tool and its arguments as JSON), for a reply that edits it; absent when it cannot be edited. */
  call: z.object({ toolName: z.string(), arguments: z.string() }).optional(),
  /** The latest edit the server checked (its arguments as JSON), awaiting the person's approval by a button that names its number. */
  edited: z.object({ number: z.number().int(), arguments: z.string() }).optional(),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

const ChatRecord = z.object({ current: z.string().nullable(), follows: z.array(z.string()) });
export type ChatRecord = z.infer<typeof ChatRecord>;

const StateFile = z.object({
  version: z.literal(1),
  nextKey: z.number().int(),
  /** Per Gatehouse connection (a digest of its token): the last event handled. */
  lastEventIds: z.record(z.string(), z.string()),
  approvals: z.record(z.string(), ApprovalRecord),
  chats: z.record(z.string(), ChatRecord),
});
type StateFile = z.infer<typeof StateFile>;

/** Closed approval cards kept for their late answers; older ones are forgotten. */
const KEEP_CLOSED = 200;

/** What the bot has shown and to whom, kept in one JSON file written whole on every change. */
export class BotState {
  private constructor(
    private readonly file: string,
    private readonly data: StateFile,
  ) {}

  static load(file: string): BotState {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new BotStateError(`${file}: ${(err as Error).message}`);
      return new BotState(file, { version: 1, nextKey: 1, lastEventIds: {}, approvals: {}, chats: {} });
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new BotStateError(`${file}: not JSON (${(err as Error).message}); move it away to start afresh`);
    }
    const parsed = StateFile.safeParse(raw);
    if (!parsed.success) throw new BotStateError(`${file}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    return new BotState(file, parsed.data);
  }

  save(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.data), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }

  lastEventId(link: string): string | undefined {
    return this.data.lastEventIds[link];
  }

  /** Kept in memory until the next save: every event moves it, and writing the file for each would be slow. */
  setLastEventId(link: string, id: string): void {
    this.data.lastEventIds[link] = id;
  }

  chat(chatId: number): ChatRecord {
    return (this.data.chats[String(chatId)] ??= { current: null, follows: [] });
  }

  chatIds(): number[] {
    return Object.keys(this.data.chats).map(Number);
  }

  /** Follows a session in a chat (and makes it the chat's current one when `current`). */
  follow(chatId: number, sessionId: string, current = false): void {
    const chat = this.chat(chatId);
    if (!chat.follows.includes(sessionId)) chat.follows.push(sessionId);
    if (current) chat.current = sessionId;
    this.save();
  }

  unfollow(chatId: number, sessionId: string): void {
    const chat = this.chat(chatId);
    chat.follows = chat.follows.filter((s) => s !== sessionId);
    this.save();
  }

  approval(key: string): ApprovalRecord | undefined {
    return this.data.approvals[key];
  }

  findApproval(chatId: number, approvalId: string): ApprovalRecord | undefined {
    return Object.values(this.data.approvals).find((a) => a.chatId === chatId && a.approvalId === approvalId);
  }

  openApprovals(): ApprovalRecord[] {
    return Object.values(this.data.approvals).filter((a) => a.status !== "closed");
  }

  approvalsOf(approvalId: string): ApprovalRecord[] {
    return Object.values(this.data.approvals).filter((a) => a.approvalId === approvalId);
  }

  /** The open card a reply refers to: the card itself or its feedback prompt. */
  repliedApproval(chatId: number, messageId: number): ApprovalRecord | undefined {
    return Object.values(this.data.approvals).find(
      (a) => a.chatId === chatId && a.status !== "closed" && (a.messageId === messageId || a.promptId === messageId),
    );
  }

  /** Reserves a card before it is sent, so that the same approval arriving twice is shown once. */
  reserve(record: Omit<ApprovalRecord, "key" | "messageId" | "status" | "promptId" | "resolved" | "edited">): ApprovalRecord {
    const key = (this.data.nextKey++).toString(36);
    const full: ApprovalRecord = { ...record, key, messageId: 0, status: "pending", promptId: null, resolved: false };
    this.data.approvals[key] = full;
    return full;
  }

  update(record: ApprovalRecord, change: Partial<ApprovalRecord>): void {
    Object.assign(record, change);
    if (change.status === "closed") this.forgetOldClosed();
    this.save();
  }

  drop(record: ApprovalRecord): void {
    delete this.data.approvals[record.key];
    this.save();
  }

  private forgetOldClosed(): void {
    const closed = Object.values(this.data.approvals)
      .filter((a) => a.status === "closed")
      .sort((a, b) => parseInt(a.key, 36) - parseInt(b.key, 36));
    for (const old of closed.slice(0, Math.max(0, closed.length - KEEP_CLOSED))) delete this.data.approvals[old.key];
  }
}
