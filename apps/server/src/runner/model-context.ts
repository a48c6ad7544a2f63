import type { Log } from "@gatehouse/log";
import type { Message, SessionInfo, ToolDescriptor } from "@gatehouse/protocol";
import { now } from "../clock.js";
import { checkpointMessage, NO_CHECKPOINT, refusalsIn, type Checkpoint, type Summariser } from "./context-checkpoint.js";
import type { EventHub } from "../store/index.js";
import { modelHistory } from "./model-history.js";
import { ContextTooLongError, type ModelRequest, type ModelResponse, type Provider } from "./providers/provider.js";
import type { Store } from "../store/index.js";

/** When a session is compacted and who writes its checkpoints. */
export interface ContextSettings {
  /** Compact when the next request would pass this share of the model's window. */
  compactAt: number;
  /** A session model's context window in tokens; none: compacted only when the provider refuses a request as too long. */
  windowOf: (session: SessionInfo) => number | undefined;
  summariserFor: (session: SessionInfo) => Summariser;
}

export interface ContextOptions extends ContextSettings {
  store: Store;
  hub: EventHub;
  log: Log;
  maxToolResultChars: number;
}

/** Old tool results longer than this are trimmed to their start and end. */
const TRIM_OVER = 2_000;
const TRIM_KEEP = 700;
/** Of the budget, the newest messages kept whole when older ones are trimmed or summarised. */
const RECENT_SHARE = 0.3;
/** A compaction that trims aims below this share of the budget, so that the next steps do not compact again at once. */
const AFTER_SHARE = 0.6;
/** A window lowered after a provider refused a request as too long: this share of what the request was estimated at. */
const REFUSED_SHARE = 0.9;

/** Tokens of text, estimated at four characters a token; the provider's own count replaces it once it answers. */
const tokensOf = (chars: number) => Math.ceil(chars / 4);

/** What one running turn's model is sent, kept in step with the turn's transcript. */
interface View {
  checkpoint: Checkpoint;
  /** Messages of the transcript taken in. */
  consumed: number;
  sent: Message[];
  /** The estimated tokens of `sent`. */
  tokens: number;
  /** The provider's count of the last request's history tokens, and the estimate of `sent` then. */
  reported: { input: number; tokens: number } | null;
}

const toolTokens = new WeakMap<ToolDescriptor, number>();

/**
 * What a session's model is sent: its history from its last checkpoint on, made in step with the
 * history (so a step costs the same at message 2,000 as at message 1), and compacted when the next
 * request would pass the configured share of the model's context window: old tool results are
 * trimmed first, then older messages are summarised into a checkpoint. A provider that refuses a
 * request as too long gets one compaction and the request again.
 */
export class ModelContext {
  private readonly views = new WeakMap<readonly Message[], View>();
  private readonly checkpoints = new Map<string, Checkpoint>();
  private readonly checkpointMessages = new WeakMap<Checkpoint, Message>();
  /** Windows lowered for sessions whose provider refused a request under the configured one. */
  private readonly ceilings = new Map<string, number>();

  constructor(private readonly options: ContextOptions) {}

  async respond(session: SessionInfo, provider: Provider, transcript: readonly Message[], req: Omit<ModelRequest, "history">): Promise<ModelResponse> {
    const view = await this.viewOf(session, transcript);
    const fixed = tokensOf(req.system.length) + req.tools.reduce((sum, t) => sum + this.toolTokens(t), 0);
    const budget = this.budget(session);
    if (budget !== undefined && this.estimate(view) + fixed > budget) await this.compact(session, transcript, view, "window", fixed, req.signal);
    try {
      return await this.ask(provider, view, req, fixed);
    } catch (err) {
      if (!(err instanceof ContextTooLongError)) throw err;
      const refused = (this.estimate(view) + fixed) * REFUSED_SHARE;
      this.ceilings.set(session.id, Math.min(this.ceilings.get(session.id) ?? Infinity, refused));
      this.options.log.warn("the provider refused a request as too long; compacting and asking again", { sessionId: session.id, message: err.message });
      await this.compact(session, transcript, view, "refused", fixed, req.signal);
      return this.ask(provider, view, req, fixed);
    }
  }

  private async ask(provider: Provider, view: View, req: Omit<ModelRequest, "history">, fixed: number): Promise<ModelResponse> {
    const tokens = view.tokens;
    const response = await provider.respond({ ...req, history: modelHistory(view.sent, this.options.maxToolResultChars) });
    if (response.usage.inputTokens !== null) view.reported = { input: response.usage.inputTokens - fixed, tokens };
    return response;
  }

  /** The tokens a request may reach before the session is compacted; none for a model of unknown window never refused. */
  private budget(session: SessionInfo): number | undefined {
    const window = Math.min(this.options.windowOf(session) ?? Infinity, this.ceilings.get(session.id) ?? Infinity);
    return window === Infinity ? undefined : window * this.options.compactAt;
  }

  /** The history's tokens: the provider's count of the last request and the estimate of what came since, or the estimate if larger. */
  private estimate(view: View): number {
    const counted = view.reported ? view.reported.input + view.tokens - view.reported.tokens : 0;
    return Math.max(view.tokens, counted);
  }

  private toolTokens(t: ToolDescriptor): number {
    let n = toolTokens.get(t);
    if (n === undefined) toolTokens.set(t, (n = tokensOf(JSON.stringify(t).length)));
    return n;
  }

  private messageTokens(m: Message): number {
    if (m.role === "user") return 4 + tokensOf(m.text.length);
    if (m.role === "tool") return 4 + tokensOf(Math.min(m.content.length, this.options.maxToolResultChars));
    return 4 + tokensOf(m.text.length + m.toolCalls.reduce((sum, c) => sum + c.toolName.length + c.arguments.length + 20, 0));
  }

  private async viewOf(session: SessionInfo, transcript: readonly Message[]): Promise<View> {
    let view = this.views.get(transcript);
    if (!view) {
      view = { checkpoint: await this.checkpointOf(session.id, transcript.length), consumed: 0, sent: [], tokens: 0, reported: null };
      this.rebuild(view, transcript);
      this.views.set(transcript, view);
    }
    for (; view.consumed < transcript.length; view.consumed++) this.take(view, transcript[view.consumed]!, view.consumed);
    return view;
  }

  /** The session's last checkpoint: kept here since this process made it or read it, or read from its events. */
  private async checkpointOf(sessionId: string, length: number): Promise<Checkpoint> {
    let found = this.checkpoints.get(sessionId);
    if (!found) {
      const last = (await this.options.store.eventsAfter(0, sessionId)).findLast((e) => e.event.type === "context_compacted")?.event;
      found =
        last?.type === "context_compacted"
          ? { summarisedThrough: last.summarisedThrough, trimmedThrough: last.trimmedThrough, summary: last.summary, refusals: last.refusals }
          : NO_CHECKPOINT;
      this.checkpoints.set(sessionId, found);
    }
    return found.summarisedThrough <= length && found.trimmedThrough <= length ? found : NO_CHECKPOINT;
  }

  private rebuild(view: View, transcript: readonly Message[]): void {
    const c = view.checkpoint;
    view.sent = c.summary === null ? [] : [this.checkpointMessage(c)];
    view.tokens = view.sent.reduce((sum, m) => sum + this.messageTokens(m), 0);
    view.reported = null;
    for (let i = c.summarisedThrough; i < transcript.length; i++) this.take(view, transcript[i]!, i);
    view.consumed = transcript.length;
  }

  /** A checkpoint's message, made once: a turn that starts from it sends the same object, and what was made from it for the model is kept. */
  private checkpointMessage(c: Checkpoint): Message {
    let m = this.checkpointMessages.get(c);
    if (!m) this.checkpointMessages.set(c, (m = checkpointMessage(c)));
    return m;
  }

  private take(view: View, m: Message, index: number): void {
    const shown = index < view.checkpoint.trimmedThrough ? trimmed(m) : m;
    view.sent.push(shown);
    view.tokens += this.messageTokens(shown);
  }

  /** Trims old tool results, then, when that is not enough or the provider refused, summarises the older messages. */
  private async compact(
    session: SessionInfo,
    transcript: readonly Message[],
    view: View,
    reason: "window" | "refused",
    fixed: number,
    signal: AbortSignal,
  ): Promise<void> {
    const before = this.estimate(view) + fixed;
    const budget = this.budget(session)!;
    const from = view.checkpoint.summarisedThrough;
    const recent = this.recentStart(transcript, from, reason === "refused" ? 0 : (budget - fixed) * RECENT_SHARE);
    const trimmedThrough = reason === "refused" ? transcript.length : Math.max(view.checkpoint.trimmedThrough, recent);
    // Nothing older than the newest messages is left to trim or summarise: the request goes as it is, and the provider decides.
    if (recent === from && trimmedThrough === view.checkpoint.trimmedThrough) return;
    let c: Checkpoint = { ...view.checkpoint, trimmedThrough };
    this.apply(view, transcript, c);
    const enough = reason === "window" && view.tokens + fixed <= budget * AFTER_SHARE;
    if (!enough && recent > from) {
      const part = transcript.slice(from, recent);
      const summary = await this.options.summariserFor(session)(c.summary, part, signal);
      c = { ...c, summarisedThrough: recent, summary, refusals: [...c.refusals, ...refusalsIn(part)] };
      this.apply(view, transcript, c);
    }
    this.checkpoints.set(session.id, c);
    await this.options.hub.publish({
      type: "context_compacted",
      sessionId: session.id,
      at: now(),
      reason,
      ...c,
      tokensBefore: before,
      tokensAfter: view.tokens + fixed,
    });
  }

  private apply(view: View, transcript: readonly Message[], c: Checkpoint): void {
    view.checkpoint = c;
    this.rebuild(view, transcript);
  }

  /**
   * Where the newest messages that fit in `tokens` begin: never after the last call or prompt (the
   * model always sees the step it answers), and never at a tool result, which stays with its call.
   */
  private recentStart(transcript: readonly Message[], from: number, tokens: number): number {
    let i = Math.max(
      from,
      transcript.findLastIndex((m) => m.role !== "tool"),
    );
    let sum = transcript.slice(i).reduce((n, m) => n + this.messageTokens(m), 0);
    while (i > from && sum + this.messageTokens(transcript[i - 1]!) <= tokens) sum += this.messageTokens(transcript[--i]!);
    while (i > from && transcript[i]?.role === "tool") i--;
    return i;
  }
}

const trimmedResults = new WeakMap<Message, Message>();

/** An old tool result as the model is sent it: its start and end, with a notice between; made once per result. */
function trimmed(m: Message): Message {
  if (m.role !== "tool" || m.content.length <= TRIM_OVER) return m;
  let found = trimmedResults.get(m);
  if (!found) trimmedResults.set(m, (found = trim(m)));
  return found;
}

function trim(m: Message & { role: "tool" }): Message {
  const left = m.content.length - 2 * TRIM_KEEP;
  const notice = `\n[... ${left} characters of this old result trimmed to fit the context window ...]\n`;
  return { ...m, content: m.content.slice(0, TRIM_KEEP) + notice + m.content.slice(-TRIM_KEEP) };
}
