import http from "node:http";
import type { AddressInfo } from "node:net";
import { startTelegramBot, type Log, type TelegramBot } from "@gatehouse/telegram";
import { CLIENT_TOKEN } from "./cluster.js";
import { waitUntil } from "./wait.js";

/** The Gatehouse token of the chat's user (an approver on w1). */
export const BOT_USER_TOKEN = "telegram-ada-token-0001";

/** The server config a bot test needs: the scripted scenario, an admin client and the chat user's token. */
export const botServerConfig = (scenario: string) => ({
  scenario,
  clientTokens: [
    { token: CLIENT_TOKEN, name: "ada-terminal", role: "admin" },
    { token: BOT_USER_TOKEN, name: "ada-telegram", role: "approver", workers: ["w1"] },
  ],
});

/** A bot for chat user `userId` (with BOT_USER_TOKEN) on a server, talking to the fake Bot API, polling and flushing quickly. */
export const startTestBot = (server: { url: string }, api: FakeBotApi, userId: number, stateFile: string, log: Log): Promise<TelegramBot> =>
  startTelegramBot({
    url: server.url,
    botToken: api.token,
    apiRoot: api.apiRoot,
    users: [{ id: userId, token: BOT_USER_TOKEN }],
    stateFile,
    pollSeconds: 1,
    followFlushMs: 50,
    log,
  });

/** A message in a chat of the fake Bot API, as the test sees it. */
export interface ChatMessage {
  messageId: number;
  chatId: number;
  /** "bot", or the id of the user who wrote it. */
  from: "bot" | number;
  text: string;
  replyMarkup: { inline_keyboard?: { text: string; callback_data: string }[][]; force_reply?: boolean } | undefined;
  replyTo: number | undefined;
  document: { fileName: string; content: string } | undefined;
  edits: number;
}

interface Update {
  update_id: number;
  [kind: string]: unknown;
}

const BOT_USER = { id: 4242, is_bot: true, first_name: "Gatehouse", username: "gatehouse_test_bot" };

/**
 * The part of Telegram's Bot API that the bot uses, on loopback: long polling, messages, edits,
 * inline buttons, documents. Tests write as users and press buttons; the bot sees Telegram.
 */
export class FakeBotApi {
  readonly token = "4242:fake-bot-token-for-tests";
  readonly messages: ChatMessage[] = [];
  readonly callbackAnswers: { id: string; text: string | undefined }[] = [];
  readonly unknownMethods: string[] = [];
  private readonly updates: Update[] = [];
  private readonly pollers = new Set<() => void>();
  private nextUpdateId = 1;
  private nextMessageId = 1;
  private nextCallbackId = 1;

  private constructor(private readonly server: http.Server) {}

  /** On `port` when given (a test that brings the API up where a bot already looks), else on a free one. */
  static async start(port = 0): Promise<FakeBotApi> {
    const server = http.createServer();
    const api = new FakeBotApi(server);
    server.on("request", (req, res) => void api.handle(req, res));
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    return api;
  }

  get apiRoot(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const wake of this.pollers) wake();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A user writes to the bot in their private chat, optionally as a reply. */
  userSends(userId: number, text: string, replyTo?: number): ChatMessage {
    const message = this.add({ chatId: userId, from: userId, text, replyMarkup: undefined, replyTo, document: undefined });
    const entities = text.startsWith("/") ? [{ type: "bot_command", offset: 0, length: text.split(/\s/, 1)[0]!.length }] : undefined;
    const original = replyTo === undefined ? undefined : this.messages.find((m) => m.messageId === replyTo);
    this.push({
      message: {
        ...this.wire(message),
        ...(entities ? { entities } : {}),
        ...(original ? { reply_to_message: this.wire(original) } : {}),
      },
    });
    return message;
  }

  /** A user presses an inline button of a message. */
  press(userId: number, messageId: number, data: string): string {
    const message = this.messages.find((m) => m.messageId === messageId);
    if (!message) throw new Error(`no message ${messageId}`);
    const id = String(this.nextCallbackId++);
    this.push({ callback_query: { id, from: this.user(userId), message: this.wire(message), chat_instance: "1", data } });
    return id;
  }

  /** The data of the button whose label starts with `label`, on a message. */
  button(message: ChatMessage, label: string): string {
    const found = message.replyMarkup?.inline_keyboard?.flat().find((b) => b.text.startsWith(label));
    if (!found) throw new Error(`no button "${label}" on message ${message.messageId}: ${JSON.stringify(message.replyMarkup)}`);
    return found.callback_data;
  }

  botMessages(chatId: number): ChatMessage[] {
    return this.messages.filter((m) => m.chatId === chatId && m.from === "bot");
  }

  async waitForMessage(chatId: number, where: (m: ChatMessage) => boolean, what: string, timeoutMs = 10_000): Promise<ChatMessage> {
    let found: ChatMessage | undefined;
    await waitUntil(() => (found = this.botMessages(chatId).find(where)) !== undefined, timeoutMs, what);
    return found!;
  }

  async waitForAnswer(callbackId: string, timeoutMs = 10_000): Promise<string | undefined> {
    let found: { text: string | undefined } | undefined;
    await waitUntil(() => (found = this.callbackAnswers.find((a) => a.id === callbackId)) !== undefined, timeoutMs, `the answer to button press ${callbackId}`);
    return found!.text;
  }

  private user(id: number) {
    return { id, is_bot: false, first_name: `user${id}` };
  }

  private add(m: Omit<ChatMessage, "messageId" | "edits">): ChatMessage {
    const message = { ...m, messageId: this.nextMessageId++, edits: 0 };
    this.messages.push(message);
    return message;
  }

  private wire(m: ChatMessage) {
    return {
      message_id: m.messageId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: m.chatId, type: "private", first_name: `user${m.chatId}` },
      from: m.from === "bot" ? BOT_USER : this.user(m.from),
      ...(m.document
        ? { document: { file_id: `f${m.messageId}`, file_unique_id: `u${m.messageId}`, file_name: m.document.fileName }, caption: m.text }
        : { text: m.text }),
      ...(m.replyMarkup ? { reply_markup: m.replyMarkup } : {}),
    };
  }

  private push(update: Omit<Update, "update_id">): void {
    this.updates.push({ update_id: this.nextUpdateId++, ...update });
    for (const wake of this.pollers) wake();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(req.url ?? "/", "http://x").pathname);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const reply = (status: number, body: object) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (!m || m[1] !== this.token) return reply(401, { ok: false, error_code: 401, description: "Unauthorized" });
    const payload = await this.payload(req, Buffer.concat(chunks));
    try {
      const result = await this.call(m[2]!, payload, req);
      reply(200, { ok: true, result });
    } catch (err) {
      const e = err as { code?: number; message: string };
      reply(e.code ?? 400, { ok: false, error_code: e.code ?? 400, description: e.message });
    }
  }

  private async payload(req: http.IncomingMessage, body: Buffer): Promise<Record<string, unknown>> {
    const type = req.headers["content-type"] ?? "";
    if (type.startsWith("application/json")) return body.length ? (JSON.parse(body.toString("utf8")) as Record<string, unknown>) : {};
    const boundary = /boundary=(.+)$/.exec(type)?.[1];
    if (!type.startsWith("multipart/form-data") || !boundary) return {};
    const out: Record<string, unknown> = {};
    for (const part of body.toString("utf8").split(`--${boundary}`).slice(1, -1)) {
      const split = part.indexOf("\r\n\r\n");
      const head = part.slice(0, split);
      const value = part.slice(split + 4, part.endsWith("\r\n") ? -2 : undefined);
      const name = /name="([^"]+)"/i.exec(head)?.[1];
      const fileName = /filename="?([^";\r\n]+)"?/i.exec(head)?.[1];
      if (!name) continue;
      out[name] = fileName ? { fileName, content: value } : /^[[{]/.test(value) ? JSON.parse(value) : value;
    }
    // A file may also be sent as its own part, named by an attach:// reference.
    for (const [name, value] of Object.entries(out))
      if (typeof value === "string" && value.startsWith("attach://")) out[name] = out[value.slice("attach://".length)];
    return out;
  }

  private find(payload: Record<string, unknown>): ChatMessage {
    const found = this.messages.find((x) => x.chatId === Number(payload.chat_id) && x.messageId === Number(payload.message_id));
    if (!found) throw Object.assign(new Error("Bad Request: message to edit not found"), { code: 400 });
    return found;
  }

  private async call(method: string, p: Record<string, unknown>, req: http.IncomingMessage): Promise<unknown> {
    const replyTo = (p.reply_parameters as { message_id?: number } | undefined)?.message_id;
    switch (method) {
      case "getMe":
        return BOT_USER;
      case "deleteWebhook":
      case "setMyCommands":
        return true;
      case "getUpdates": {
        const offset = Number(p.offset ?? 0);
        this.updates.splice(0, this.updates.filter((u) => u.update_id < offset).length);
        if (this.updates.length === 0 && Number(p.timeout ?? 0) > 0) {
          await new Promise<void>((resolve) => {
            const wake = () => (this.pollers.delete(wake), clearTimeout(timer), resolve());
            const timer = setTimeout(wake, Number(p.timeout) * 1000);
            this.pollers.add(wake);
            req.once("close", wake);
          });
        }
        return this.updates.slice(0, Number(p.limit ?? 100));
      }
      case "sendMessage": {
        const sent = this.add({
          chatId: Number(p.chat_id),
          from: "bot",
          text: String(p.text),
          replyMarkup: p.reply_markup as ChatMessage["replyMarkup"],
          replyTo,
          document: undefined,
        });
        return this.wire(sent);
      }
      case "sendDocument": {
        const doc = p.document as { fileName: string; content: string };
        const sent = this.add({ chatId: Number(p.chat_id), from: "bot", text: String(p.caption ?? ""), replyMarkup: undefined, replyTo, document: doc });
        return this.wire(sent);
      }
      case "editMessageText": {
        const target = this.find(p);
        const markup = p.reply_markup as ChatMessage["replyMarkup"];
        if (target.text === p.text && JSON.stringify(target.replyMarkup) === JSON.stringify(markup)) throw new Error("Bad Request: message is not modified");
        Object.assign(target, { text: String(p.text), replyMarkup: markup, edits: target.edits + 1 });
        return this.wire(target);
      }
      case "editMessageReplyMarkup": {
        const target = this.find(p);
        Object.assign(target, { replyMarkup: p.reply_markup as ChatMessage["replyMarkup"], edits: target.edits + 1 });
        return this.wire(target);
      }
      case "answerCallbackQuery":
        this.callbackAnswers.push({ id: String(p.callback_query_id), text: p.text as string | undefined });
        return true;
      default:
        this.unknownMethods.push(method);
        throw Object.assign(new Error(`Not Found: method ${method}`), { code: 404 });
    }
  }
}
