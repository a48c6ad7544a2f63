import type { ApprovalRequired, Decision, EventOf, GatehouseEvent } from "@gatehouse/protocol";
import type { TlsClientOptions } from "@gatehouse/protocol/node";
import { editedArguments, safePresentation } from "@gatehouse/protocol/show";
import { Bot, GrammyError, InputFile, type Context } from "grammy";
import { approvalCard, approvalKeyboard, denyKeyboard, NO_LONGER_PENDING, outcomeLine, rememberedPatterns } from "./approval-card.js";
import { BotState, type ApprovalRecord } from "./bot-state.js";
import { EDIT_HINT, editedCallMessage, editKeyboard } from "./edit-reply.js";
import { registerCommands, COMMANDS } from "./commands.js";
import { followLine } from "./follow-lines.js";
import { GatehouseLink, tokenDigest } from "./gatehouse-link.js";
import { cut, short } from "./html.js";
import { createLog, type Log } from "@gatehouse/log";
import { describeProblem } from "./problem.js";
import { PollWatch, reachBotApi } from "./api-reach.js";

export interface TelegramBotOptions {
  /** The Gatehouse server, ws:// or wss://. */
  url: string;
  botToken: string;
  /** Allowed Telegram user ids, each with the Gatehouse client token it acts with. */
  users: { id: number; token: string }[];
  stateFile: string;
  /** How to trust a wss:// server (a pinned certificate, say), as decided before the start. */
  tls?: TlsClientOptions | undefined;
  /** The Bot API root; Telegram's own when absent. */
  apiRoot?: string | undefined;
  log?: Log;
  /** Seconds one long poll for updates waits (Telegram allows up to 50). */
  pollSeconds?: number;
  /** How long the lines of a followed session gather before they go as one message. */
  followFlushMs?: number;
}

/** A chat's message limit is 4096 characters; cards and follow messages stay under it. */
const MESSAGE_MAX = 4000;
const SCOPE_OF = { ap: "once", as: "session", aa: "always" } as const;
const EDITED_SCOPE_OF = { eo: "once", es: "session", ea: "always", ec: "once" } as const;

const notModified = (err: unknown) => err instanceof GrammyError && /message is not modified/.test(err.description);

/** Telegram's bot: Gatehouse sessions and approvals in a private chat, for the users it knows. */
export class TelegramBot {
  readonly bot: Bot;
  readonly state: BotState;
  readonly log: Log;
  private readonly links = new Map<string, GatehouseLink>();
  private readonly linkOfUser = new Map<number, GatehouseLink>();
  /** The highest event id handled per connection and session, so that a resubscription repeats nothing. */
  private readonly seen = new Map<string, number>();
  private readonly buffers = new Map<number, { lines: string[]; timer: NodeJS.Timeout | null }>();
  private readonly chatQueues = new Map<number, Promise<void>>();
  private saveTimer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private readonly stopping = new AbortController();
  private readonly apiRoot: string;

  constructor(private readonly opts: TelegramBotOptions) {
    this.log = opts.log ?? createLog().child({ component: "telegram" });
    this.state = BotState.load(opts.stateFile);
    this.apiRoot = opts.apiRoot ?? "https://api.telegram.org";
    // A call that hangs fails after the long poll's own wait and a margin, rather than grammY's 500 s.
    const timeoutSeconds = (opts.pollSeconds ?? 30) + 15;
    this.bot = new Bot(opts.botToken, { client: { timeoutSeconds, ...(opts.apiRoot ? { apiRoot: opts.apiRoot } : {}) } });
    const poll = new PollWatch(this.apiRoot, this.log);
    this.bot.api.config.use(async (prev, method, payload, signal) => {
      if (method !== "getUpdates") return prev(method, payload, signal);
      try {
        const res = await prev(method, payload, signal);
        poll.worked();
        return res;
      } catch (err) {
        if (!this.stopping.signal.aborted) poll.failed(err);
        throw err;
      }
    });
    this.bot.api.config.use(async (prev, method, payload, signal) => {
      for (let attempt = 0; ; attempt++) {
        const res = await prev(method, payload, signal);
        if (res.ok || res.error_code !== 429 || method === "getUpdates" || attempt >= 3) return res;
        await new Promise((r) => setTimeout(r, (res.parameters?.retry_after ?? 1) * 1000));
      }
    });
    for (const user of opts.users) {
      let link = this.links.get(tokenDigest(user.token));
      if (!link) {
        link = new GatehouseLink(opts.url, user.token, this.log, opts.tls);
        this.links.set(link.key, link);
      }
      this.linkOfUser.set(user.id, link);
    }
    this.bot.use((ctx, next) => this.admit(ctx, next));
    registerCommands(this);
    this.bot.on("callback_query:data", (ctx) => this.onButton(ctx));
    this.bot.catch((err) => this.log.warn("an update failed", { error: describeProblem(err.error) }));
  }

  /**
   * Checks the bot token with Telegram (trying again, and saying so, while the Bot API cannot be
   * reached), follows the server's events, and starts polling for updates. Resolves once polling
   * runs, or when the bot is stopped first.
   */
  async start(): Promise<void> {
    if (!(await reachBotApi(this.bot, this.apiRoot, this.log, this.stopping.signal))) return;
    await this.bot.api
      .setMyCommands(COMMANDS.map(([command, description]) => ({ command, description })))
      .catch((err: unknown) => this.log.warn("could not set the command list", { error: describeProblem(err) }));
    for (const link of this.links.values())
      link.start(
        this.state.lastEventId(link.key),
        (id, e) => this.onEvent(link, id, e),
        () => this.checkOpenCards(link),
      );
    await new Promise<void>((resolve, reject) => {
      this.polling = this.bot.start({ timeout: this.opts.pollSeconds ?? 30, allowed_updates: ["message", "callback_query"], onStart: () => resolve() });
      this.polling.catch((err: unknown) => {
        this.log.warn("polling for updates stopped", { error: describeProblem(err) });
        reject(err as Error);
      });
    });
    this.log.info("bot started", { bot: this.bot.botInfo.username, users: this.opts.users.map((u) => u.id), server: this.opts.url });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.bot.isRunning()) await this.bot.stop().catch(() => undefined);
    await this.polling?.catch(() => undefined);
    await Promise.all([...this.links.values()].map((l) => l.stop()));
    for (const chat of this.buffers.keys()) await this.flush(chat);
    await Promise.all(this.chatQueues.values());
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.state.save();
  }

  /** Resolves once every event received so far is shown. */
  async idle(): Promise<void> {
    await Promise.all([...this.links.values()].map((l) => l.idle()));
    await Promise.all(this.chatQueues.values());
  }

  /** The Gatehouse connection of the user behind an update (admitted users only). */
  linkOf(ctx: Context): GatehouseLink {
    const link = ctx.from && this.linkOfUser.get(ctx.from.id);
    if (!link) throw new Error("not an allowed user");
    return link;
  }

  private async admit(ctx: Context, next: () => Promise<void>): Promise<void> {
    const id = ctx.from?.id;
    if (id !== undefined && this.linkOfUser.has(id)) {
      if (ctx.chat && ctx.chat.type !== "private") {
        await ctx.reply("Talk to me in a private chat: approvals go there.").catch(() => undefined);
        return;
      }
      return next();
    }
    this.log.warn("refused a user who is not allowed", {
      userId: id ?? null,
      username: ctx.from?.username ?? null,
      chatId: ctx.chat?.id ?? null,
      text: cut(ctx.message?.text ?? ctx.callbackQuery?.data ?? "", 100),
    });
    if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: "You are not allowed to use this bot." }).catch(() => undefined);
    else if (ctx.chat)
      await ctx.reply(`Sorry, this bot is private. Your Telegram user id is ${id ?? "unknown"}; only its operator can let you in.`).catch(() => undefined);
  }

  // --- events from Gatehouse ---

  private async onEvent(link: GatehouseLink, id: string, e: GatehouseEvent): Promise<void> {
    const chats = this.chatsOf(link);
    if (e.type === "tool_approval_required") {
      for (const chat of chats) await this.showApproval(link, chat, e);
    } else if (e.type === "tool_approval_resolved") {
      for (const rec of this.state.approvalsOf(e.approvalId)) if (chats.includes(rec.chatId)) await this.showOutcome(rec, e);
    } else if (!this.repeated(link, e.sessionId, id)) {
      if (e.type === "session_created" && e.session.parentId) {
        for (const chat of chats) if (this.state.chat(chat).follows.includes(e.session.parentId)) this.state.follow(chat, e.session.id);
      }
      const line = followLine(e);
      if (line) for (const chat of chats) if (this.state.chat(chat).follows.includes(e.sessionId)) this.addLine(chat, e.sessionId, line);
    }
    this.advance(link, id, e);
  }

  private chatsOf(link: GatehouseLink): number[] {
    return this.opts.users.filter((u) => this.linkOfUser.get(u.id) === link).map((u) => u.id);
  }

  /**
   * After a (re)subscription, cards whose approval the server no longer holds (lost in a restart
   * of a server that keeps state in memory) say so and lose their buttons.
   */
  private async checkOpenCards(link: GatehouseLink): Promise<void> {
    const chats = this.chatsOf(link);
    for (const rec of this.state.openApprovals().filter((a) => chats.includes(a.chatId))) {
      const gone = await link.client.tool.view.query({ sessionId: rec.sessionId, approvalId: rec.approvalId }).then(
        () => false,
        (err: { data?: { code?: string } }) => err.data?.code === "NOT_FOUND",
      );
      if (gone && !rec.resolved && rec.status !== "closed") {
        this.state.update(rec, { status: "closed" });
        await this.editCard(rec, NO_LONGER_PENDING);
      }
    }
  }

  private repeated(link: GatehouseLink, sessionId: string, id: string): boolean {
    const key = `${link.key}:${sessionId}`;
    if (Number(id) <= (this.seen.get(key) ?? 0)) return true;
    this.seen.set(key, Number(id));
    return false;
  }

  /** Remembers the last event handled; a pending approval sent again on resubscribe does not move it back. */
  private advance(link: GatehouseLink, id: string, e: GatehouseEvent): void {
    const prev = this.state.lastEventId(link.key);
    if (e.type === "tool_approval_required" && prev !== undefined && Number(id) <= Number(prev)) return;
    this.state.setLastEventId(link.key, id);
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = null;
      this.state.save();
    }, 300);
  }

  private async showApproval(link: GatehouseLink, chat: number, e: ApprovalRequired): Promise<void> {
    if (this.state.findApproval(chat, e.approvalId)) return;
    let card = approvalCard(e);
    for (let inline = 1200; card.text.length > MESSAGE_MAX && inline > 100; inline = Math.floor(inline / 2)) card = approvalCard(e, inline);
    if (e.editable) card = { ...card, text: `${card.text}\n${EDIT_HINT}` };
    const rec = this.state.reserve({
      chatId: chat,
      approvalId: e.approvalId,
      sessionId: e.sessionId,
      text: card.text,
      patterns: rememberedPatterns(e),
      ...(e.digest ? { digest: e.digest } : {}),
      ...(e.editable ? { call: { toolName: e.toolName, arguments: e.arguments } } : {}),
    });
    await this.inChat(chat, async () => {
      try {
        const sent = await this.bot.api.sendMessage(chat, card.text, {
          parse_mode: "HTML",
          reply_markup: approvalKeyboard(rec.key, rec.patterns),
          link_preview_options: { is_disabled: true },
        });
        this.state.update(rec, { messageId: sent.message_id });
      } catch (err) {
        this.state.drop(rec);
        this.log.warn("could not send an approval", { chatId: chat, approvalId: e.approvalId, error: describeProblem(err) });
        return;
      }
      if (card.attach && e.presentation) await this.sendWhole(link, chat, rec, e);
    });
  }

  /** The whole diff or command as a document below its card. */
  private async sendWhole(link: GatehouseLink, chat: number, rec: ApprovalRecord, e: ApprovalRequired): Promise<void> {
    let whole = e.presentation!;
    try {
      whole = (await link.client.tool.view.query({ sessionId: e.sessionId, approvalId: e.approvalId })) ?? whole;
    } catch (err) {
      this.log.warn("the whole presentation could not be fetched; sending the cut one", { approvalId: e.approvalId, error: describeProblem(err) });
    }
    const name = `${short(e.sessionId)}-${e.toolName}.${e.presentation!.kind === "diff" ? "diff" : "txt"}`;
    await this.bot.api
      .sendDocument(chat, new InputFile(Buffer.from(safePresentation(whole).content, "utf8"), name), {
        reply_parameters: { message_id: rec.messageId },
        caption: `The whole ${e.presentation!.kind} of the approval above.`,
      })
      .catch((err: unknown) => this.log.warn("could not send a document", { chatId: chat, error: describeProblem(err) }));
  }

  private async showOutcome(rec: ApprovalRecord, e: EventOf<"tool_approval_resolved">): Promise<void> {
    if (rec.resolved) return;
    this.state.update(rec, { status: "closed", resolved: true });
    await this.editCard(rec, outcomeLine(e));
  }

  /** The card with a last line below it and no buttons. */
  private editCard(rec: ApprovalRecord, line: string): Promise<void> {
    return this.inChat(rec.chatId, async () => {
      await this.bot.api
        .editMessageText(rec.chatId, rec.messageId, `${rec.text}\n\n${line}`, { parse_mode: "HTML", link_preview_options: { is_disabled: true } })
        .catch((err: unknown) => {
          if (!notModified(err)) this.log.warn("could not update an approval", { chatId: rec.chatId, approvalId: rec.approvalId, error: describeProblem(err) });
        });
    });
  }

  // --- follow lines ---

  private addLine(chat: number, sessionId: string, line: string): void {
    const follows = this.state.chat(chat).follows;
    const text = follows.length > 1 ? `<code>${short(sessionId)}</code> ${line}` : line;
    let buf = this.buffers.get(chat);
    if (!buf) this.buffers.set(chat, (buf = { lines: [], timer: null }));
    buf.lines.push(text);
    if (buf.lines.join("\n").length > MESSAGE_MAX - 500) void this.flush(chat);
    else buf.timer ??= setTimeout(() => void this.flush(chat), this.opts.followFlushMs ?? 700);
  }

  private flush(chat: number): Promise<void> {
    const buf = this.buffers.get(chat);
    if (!buf || buf.lines.length === 0) return Promise.resolve();
    if (buf.timer) clearTimeout(buf.timer);
    buf.timer = null;
    const lines = buf.lines.splice(0);
    return this.inChat(chat, async () => {
      for (let text = lines.join("\n"); text.length > 0; text = text.slice(MESSAGE_MAX)) {
        await this.bot.api
          .sendMessage(chat, text.slice(0, MESSAGE_MAX), { parse_mode: "HTML", link_preview_options: { is_disabled: true } })
          .catch((err: unknown) => this.log.warn("could not send session lines", { chatId: chat, error: describeProblem(err) }));
      }
    });
  }

  /** Runs sends to one chat one after another, gathered follow lines first, so the chat reads in order. */
  private inChat(chat: number, send: () => Promise<void>): Promise<void> {
    const buf = this.buffers.get(chat);
    if (buf && buf.lines.length > 0) void this.flush(chat);
    const settled = (this.chatQueues.get(chat) ?? Promise.resolve())
      .then(send)
      .catch((err: unknown) => this.log.warn("a send failed", { chatId: chat, error: describeProblem(err) }));
    this.chatQueues.set(chat, settled);
    return settled;
  }

  // --- buttons and replies on approval cards ---

  private async onButton(ctx: Context): Promise<void> {
    const [verb = "", key = "", edit = ""] = (ctx.callbackQuery?.data ?? "").split(":");
    const rec = this.state.approval(key);
    if (!rec || rec.chatId !== ctx.chat?.id) {
      await ctx.answerCallbackQuery({ text: "This approval is not known here any more." });
      return;
    }
    if (rec.status === "closed") {
      await ctx.answerCallbackQuery({ text: "Already answered." });
      await ctx.editMessageReplyMarkup().catch(() => undefined);
      return;
    }
    if (verb === "ap" || verb === "as" || verb === "aa") return this.answer(ctx, rec, { kind: "approve", scope: SCOPE_OF[verb] });
    if (verb === "eo" || verb === "es" || verb === "ea" || verb === "ec") {
      // A button answers for the edit its message showed, never for a later one.
      if (!rec.edited || String(rec.edited.number) !== edit)
        return void (await ctx.answerCallbackQuery({ text: "A later edit replaced this one: use its buttons." }));
      const edited = JSON.parse(rec.edited.arguments) as Record<string, unknown>;
      return this.answer(ctx, rec, { kind: "approve", scope: EDITED_SCOPE_OF[verb], edited, ...(verb === "ec" ? { confirmCritical: true } : {}) });
    }
    if (verb === "dx") return this.answer(ctx, rec, { kind: "deny", mode: "soft" });
    if (verb === "dh") return this.answer(ctx, rec, { kind: "deny", mode: "hard" });
    if (verb === "dn") return this.askFeedback(ctx, rec);
    if (verb === "bk") {
      this.state.update(rec, { status: "pending" });
      await ctx.editMessageReplyMarkup({ reply_markup: approvalKeyboard(rec.key, rec.patterns) }).catch(() => undefined);
      await ctx.answerCallbackQuery();
      return;
    }
    await ctx.answerCallbackQuery({ text: "Unknown button." });
  }

  private async askFeedback(ctx: Context, rec: ApprovalRecord): Promise<void> {
    await ctx.editMessageReplyMarkup({ reply_markup: denyKeyboard(rec.key) }).catch(() => undefined);
    await ctx.answerCallbackQuery({ text: "Reply with feedback for the agent, or choose below." });
    const prompt = await ctx.api.sendMessage(rec.chatId, "Why not? Reply to this message with feedback for the agent (optional).", {
      reply_parameters: { message_id: rec.messageId },
      reply_markup: { force_reply: true, input_field_placeholder: "Feedback for the agent" },
    });
    this.state.update(rec, { status: "denying", promptId: prompt.message_id });
  }

  /** A text that replies to an open card or its feedback prompt; false when the reply is about something else. */
  async onReply(ctx: Context, repliedTo: number, text: string): Promise<boolean> {
    const rec = this.state.repliedApproval(ctx.chat!.id, repliedTo);
    if (!rec) return false;
    if (rec.status !== "denying" && rec.call) {
      await this.proposeEdit(ctx, rec, rec.call, text);
      return true;
    }
    if (rec.status !== "denying") {
      await ctx.reply("To deny with feedback, press Deny on the approval first, then reply.");
      return true;
    }
    await this.answer(ctx, rec, { kind: "deny", mode: "soft", feedback: text });
    return true;
  }

  /** A reply that edits the card's call: the server checks the edited call, and the person approves it by a button. */
  private async proposeEdit(ctx: Context, rec: ApprovalRecord, call: { toolName: string; arguments: string }, text: string): Promise<void> {
    let edited: Record<string, unknown>;
    try {
      edited = editedArguments(call.toolName, call.arguments, text);
    } catch (err) {
      return void (await ctx.reply(`Not approved: ${(err as Error).message}`));
    }
    let check: { decision: Decision; suggestedPatterns: string[] };
    try {
      check = await this.linkOf(ctx).client.tool.checkEdit.query({ sessionId: rec.sessionId, approvalId: rec.approvalId, editedArguments: edited });
    } catch (err) {
      return void (await ctx.reply(`Not approved: ${describeProblem(err)}`));
    }
    const number = (rec.edited?.number ?? 0) + 1;
    this.state.update(rec, { edited: { number, arguments: JSON.stringify(edited) } });
    await ctx.reply(editedCallMessage(call.toolName, call.arguments, edited, check.decision), {
      parse_mode: "HTML",
      reply_parameters: { message_id: rec.messageId },
      reply_markup: editKeyboard(`${rec.key}:${number}`, check.decision, check.suggestedPatterns),
    });
  }

  private async answer(
    ctx: Context,
    rec: ApprovalRecord,
    a:
      | ({ kind: "approve"; scope: "once" | "session" | "always" } & { edited?: Record<string, unknown>; confirmCritical?: boolean })
      | { kind: "deny"; mode: "soft" | "hard"; feedback?: string },
  ): Promise<void> {
    const ref = { sessionId: rec.sessionId, approvalId: rec.approvalId };
    const client = this.linkOf(ctx).client;
    let applied: boolean;
    try {
      applied = (
        a.kind === "approve"
          ? await client.tool.approve.mutate({
              ...ref,
              scope: a.scope,
              ...(rec.digest ? { digest: rec.digest } : {}),
              ...(a.edited ? { editedArguments: a.edited } : {}),
              ...(a.confirmCritical ? { confirmCritical: true } : {}),
            })
          : await client.tool.deny.mutate({ ...ref, mode: a.mode, ...(a.feedback ? { feedback: a.feedback } : {}) })
      ).applied;
    } catch (err) {
      if ((err as { data?: { code?: string } }).data?.code !== "NOT_FOUND") {
        await this.tell(ctx, `Not answered: ${describeProblem(err)}`);
        return;
      }
      applied = false;
    }
    if (applied) {
      await this.tell(ctx, a.kind === "approve" ? `Approved${a.edited ? " as edited" : ""} (${a.scope}).` : "Denied.");
      return;
    }
    if (!rec.resolved) {
      this.state.update(rec, { status: "closed" });
      await this.editCard(rec, NO_LONGER_PENDING);
    }
    await this.tell(ctx, "That approval is no longer pending.");
  }

  /** A short answer: on the button when a button was pressed, else as a message. */
  private async tell(ctx: Context, text: string): Promise<void> {
    if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: cut(text, 190) }).catch(() => undefined);
    else await ctx.reply(text).catch(() => undefined);
  }
}

/** Starts a bot and returns it once it polls for updates. */
export async function startTelegramBot(opts: TelegramBotOptions): Promise<TelegramBot> {
  const bot = new TelegramBot(opts);
  await bot.start();
  return bot;
}
