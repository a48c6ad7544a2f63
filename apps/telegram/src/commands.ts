import { Mode, type SessionInfo } from "@gatehouse/protocol";
import type { Bot, Context } from "grammy";
import type { BotState } from "./bot-state.js";
import type { GatehouseLink } from "./gatehouse-link.js";
import { esc, short } from "./html.js";
import { describeProblem } from "./problem.js";

/** The bot's commands, as Telegram's command menu lists them. */
export const COMMANDS: [string, string][] = [
  ["workers", "list the workers"],
  ["sessions", "list the sessions"],
  ["new", "WORKER [MODE]: start a session and follow it"],
  ["use", "ID: make a session the current one and follow it"],
  ["prompt", "TEXT: prompt the current session (plain text does the same)"],
  ["follow", "[ID]: show a session's messages and tool calls here"],
  ["unfollow", "[ID]: stop showing a session here"],
  ["abort", "[ID]: stop the running turn"],
  ["mode", "MODE [ID]: change a session's mode"],
  ["help", "what the bot does"],
];

const HELP = [
  "This bot is a Gatehouse client: approvals of your sessions arrive here with Approve, Session, Always and Deny buttons.",
  "Deny asks for feedback: reply to its message, or deny without it.",
  "",
  ...COMMANDS.map(([c, d]) => `/${c} ${d}`),
  "",
  `Modes: ${Mode.options.join(", ")}.`,
].join("\n");

/** What the commands use of the bot (the bot gives itself): grammY's bot, the state, each person's link, replies. */
export interface CommandHost {
  readonly bot: Bot;
  readonly state: BotState;
  linkOf(ctx: Context): GatehouseLink;
  onReply(ctx: Context, repliedTo: number, text: string): Promise<boolean>;
}

/** A mistake in a command, told to the person as it is, in plain text. */
interface Mistake {
  mistake: string;
}

const mistake = (text: string): Mistake => ({ mistake: text });
const isMistake = (v: unknown): v is Mistake => typeof v === "object" && v !== null && "mistake" in v;

/** What a command answers: HTML to show, a mistake to tell, or nothing. */
type Answer = string | Mistake | null;

async function tell(ctx: Context, answer: Answer): Promise<void> {
  if (isMistake(answer)) await ctx.reply(answer.mistake);
  else if (answer) await ctx.reply(answer, { parse_mode: "HTML", link_preview_options: { is_disabled: true } });
}

async function sessionFor(tb: CommandHost, ctx: Context, ref: string): Promise<SessionInfo | Mistake> {
  const wanted = ref.trim() || tb.state.chat(ctx.chat!.id).current;
  if (!wanted) return mistake("No session chosen: /new WORKER starts one, /sessions lists them, /use ID picks one.");
  const matches = (await tb.linkOf(ctx).client.session.list.query()).filter((s) => s.id.startsWith(wanted));
  if (matches.length === 1) return matches[0]!;
  return mistake(matches.length === 0 ? `There is no session ${wanted}.` : `${wanted} fits ${matches.length} sessions: give more of its id.`);
}

function describeSession(s: SessionInfo, current: string | null, follows: string[]): string {
  const marks = [s.id === current ? "current" : "", follows.includes(s.id) ? "followed" : ""].filter(Boolean);
  return `• <code>${short(s.id)}</code> on ${esc(s.workerId)} · ${esc(s.agent)} · ${s.mode} · ${s.status}${marks.length ? ` (${marks.join(", ")})` : ""}`;
}

async function prompt(tb: CommandHost, ctx: Context, text: string): Promise<Mistake | null> {
  if (!text.trim()) return mistake("Nothing to send: /prompt TEXT, or write the text as a message.");
  const session = await sessionFor(tb, ctx, "");
  if (isMistake(session)) return session;
  const { accepted } = await tb.linkOf(ctx).client.agent.prompt.mutate({ sessionId: session.id, text });
  return accepted ? null : mistake(`A turn is running in session ${short(session.id)}: wait for it to end, or /abort it.`);
}

/** Registers every command; each answers in the chat, with the problem in words when one fails. */
export function registerCommands(tb: CommandHost): void {
  const bot = tb.bot;
  const on = (command: string, run: (ctx: Context, args: string) => Promise<Answer>) =>
    bot.command(command, async (ctx) => {
      try {
        await tell(ctx, await run(ctx, typeof ctx.match === "string" ? ctx.match : ""));
      } catch (err) {
        await ctx.reply(`Failed: ${describeProblem(err)}`);
      }
    });
  const chatOf = (ctx: Context) => tb.state.chat(ctx.chat!.id);

  on("start", async () => HELP);
  on("help", async () => HELP);
  on("workers", async (ctx) => {
    const workers = await tb.linkOf(ctx).client.workers.list.query();
    if (workers.length === 0) return "No worker has registered with the server.";
    return workers
      .map((w) => `• <code>${esc(w.id)}</code> ${w.connected ? "connected" : "offline"} · ${esc(w.workDir)} · agents: ${esc(w.agents.join(", "))}`)
      .join("\n");
  });
  on("sessions", async (ctx) => {
    const sessions = (await tb.linkOf(ctx).client.session.list.query()).filter((s) => !s.parentId);
    if (sessions.length === 0) return "No sessions yet: /new WORKER starts one.";
    const chat = chatOf(ctx);
    return sessions
      .slice(-30)
      .map((s) => describeSession(s, chat.current, chat.follows))
      .join("\n");
  });
  on("new", async (ctx, args) => {
    const [workerArg, modeArg] = args.trim().split(/\s+/).filter(Boolean);
    const mode = modeArg === undefined ? undefined : Mode.safeParse(modeArg);
    if (mode && !mode.success) return mistake(`"${modeArg}" is not a mode: use one of ${Mode.options.join(", ")}.`);
    let workerId = workerArg;
    if (!workerId) {
      const online = (await tb.linkOf(ctx).client.workers.list.query()).filter((w) => w.connected);
      if (online.length !== 1) return mistake(online.length === 0 ? "No worker is connected." : `Name a worker: /new ${online.map((w) => w.id).join(" | ")}`);
      workerId = online[0]!.id;
    }
    const session = await tb.linkOf(ctx).client.session.create.mutate({ workerId, ...(mode?.success ? { mode: mode.data } : {}) });
    tb.state.follow(ctx.chat!.id, session.id, true);
    return `Session <code>${short(session.id)}</code> on ${esc(session.workerId)} (${session.mode}) is current and followed. Write a message to prompt it.`;
  });
  on("use", async (ctx, args) => {
    if (!args.trim()) return mistake("Which session? /use ID (from /sessions).");
    const session = await sessionFor(tb, ctx, args);
    if (isMistake(session)) return session;
    tb.state.follow(ctx.chat!.id, session.id, true);
    return `Session <code>${short(session.id)}</code> is current and followed.`;
  });
  on("follow", async (ctx, args) => {
    const session = await sessionFor(tb, ctx, args);
    if (isMistake(session)) return session;
    tb.state.follow(ctx.chat!.id, session.id);
    return `Following session <code>${short(session.id)}</code>.`;
  });
  on("unfollow", async (ctx, args) => {
    const session = await sessionFor(tb, ctx, args);
    if (isMistake(session)) return session;
    tb.state.unfollow(ctx.chat!.id, session.id);
    return `No longer following session <code>${short(session.id)}</code>; its approvals still come here.`;
  });
  on("prompt", (ctx, args) => prompt(tb, ctx, args));
  on("abort", async (ctx, args) => {
    const session = await sessionFor(tb, ctx, args);
    if (isMistake(session)) return session;
    const { aborted } = await tb.linkOf(ctx).client.agent.abort.mutate({ sessionId: session.id });
    return aborted ? `Aborted the turn of session <code>${short(session.id)}</code>.` : `Nothing was running in session <code>${short(session.id)}</code>.`;
  });
  on("mode", async (ctx, args) => {
    const [modeArg, ref = ""] = args.trim().split(/\s+/).filter(Boolean);
    const session = await sessionFor(tb, ctx, ref);
    if (isMistake(session)) return session;
    if (!modeArg) return `Session <code>${short(session.id)}</code> is in mode ${session.mode}. /mode MODE changes it: ${Mode.options.join(", ")}.`;
    const mode = Mode.safeParse(modeArg);
    if (!mode.success) return mistake(`"${modeArg}" is not a mode: use one of ${Mode.options.join(", ")}.`);
    await tb.linkOf(ctx).client.session.setMode.mutate({ sessionId: session.id, mode: mode.data });
    return `Session <code>${short(session.id)}</code> is now in mode ${mode.data}.`;
  });

  bot.on("message:text", async (ctx) => {
    const text = ctx.message.text;
    try {
      const repliedTo = ctx.message.reply_to_message?.message_id;
      if (repliedTo !== undefined && (await tb.onReply(ctx, repliedTo, text))) return;
      await tell(ctx, text.startsWith("/") ? mistake(`Unknown command. ${COMMANDS.map(([c]) => `/${c}`).join(" ")}`) : await prompt(tb, ctx, text));
    } catch (err) {
      await ctx.reply(`Failed: ${describeProblem(err)}`);
    }
  });
}
