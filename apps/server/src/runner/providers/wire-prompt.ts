import type { LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";

/** The wire format a provider's requests are written in. */
export type WireShape = "openai-compatible" | "anthropic";

/** The request header that names a request's splice; it never leaves the process. */
const HEADER = "x-gatehouse-wire-prompt";

/** Consecutive messages that become one message of the request body, and that message's JSON text. */
interface Group {
  /** How many of the conversation's messages are kept once this group is. */
  end: number;
  text: string;
}

/** A conversation's leading messages as the endpoint received them. */
interface Kept {
  messages: LanguageModelV3Message[];
  groups: Group[];
  /**
   * The groups' texts joined by commas, grown by concatenation: the body is made from it without
   * copying the history's text more than once (when the body is encoded).
   */
  text: string;
}

/** What one request sends: the kept groups it starts from and the messages the provider converts. */
interface Splice {
  kept: Kept;
  /** Groups of `kept` this request starts from. */
  base: number;
  fresh: LanguageModelV3Message[];
}

/** The runs of messages that become one message of the body: each its own, or, for Anthropic, a user's text with the tool results beside it. */
function groupSizes(shape: WireShape, messages: readonly LanguageModelV3Message[]): number[] {
  if (shape === "openai-compatible") return messages.map(() => 1);
  const sizes: number[] = [];
  let last: string | undefined;
  for (const m of messages) {
    const kind = m.role === "assistant" ? "assistant" : "user";
    if (kind === last) sizes[sizes.length - 1]!++;
    else sizes.push(1);
    last = kind;
  }
  return sizes;
}

/**
 * The messages of a conversation's requests kept as the request body's JSON text, extended message
 * by message: each step gives the provider only the system prompt and the messages it has not
 * converted before, and the provider's `fetch` puts the kept text in front of them in the body. So
 * a step converts and serialises its new messages only, whatever the history's length, and the
 * conversion stays the provider's own.
 *
 * A conversation is known by its first message and kept while its messages are the same objects;
 * the last group of a request is not kept (the next request may add to it: Anthropic joins a
 * user's text and the tool results before it into one message).
 */
export class WirePrompts {
  private readonly kept = new WeakMap<LanguageModelV3Message, Kept>();
  private readonly splices = new Map<string, Splice>();
  private next = 0;

  constructor(
    private readonly shape: WireShape,
    private readonly send: typeof fetch = globalThis.fetch,
  ) {}

  /** What to give the provider for `prompt` (a system message, then the conversation), and how to let go of it when the request is over. */
  prepare(prompt: LanguageModelV3Prompt): { prompt: LanguageModelV3Prompt; headers: Record<string, string>; done(): void } {
    const [system, ...messages] = prompt;
    if (!system || messages.length === 0) return { prompt, headers: {}, done: () => undefined };
    let kept = this.kept.get(messages[0]!);
    if (!kept) this.kept.set(messages[0]!, (kept = { messages: [], groups: [], text: "" }));
    const same = sharedLength(kept.messages, messages);
    let base = kept.groups.length;
    while (base > 0 && kept.groups[base - 1]!.end > same) base--;
    const start = base > 0 ? kept.groups[base - 1]!.end : 0;
    const id = String(++this.next);
    this.splices.set(id, { kept, base, fresh: messages.slice(start) });
    return { prompt: [system, ...messages.slice(start)], headers: { [HEADER]: id }, done: () => this.splices.delete(id) };
  }

  /** The `fetch` the provider is given: the request's body gets the kept messages in front of the ones the provider converted. */
  readonly fetch = (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    const splice = this.splices.get(headers.get(HEADER) ?? "");
    headers.delete(HEADER);
    const body = splice && typeof init?.body === "string" ? this.splice(splice, init.body) : init?.body;
    return this.send(input, { ...init, headers, body });
  };

  private splice(s: Splice, text: string): string {
    const { messages, ...rest } = JSON.parse(text) as { messages: unknown[] };
    // An OpenAI-compatible body starts its messages with the system prompt's.
    const lead = this.shape === "openai-compatible" ? 1 : 0;
    const fresh = messages.slice(lead).map((m) => JSON.stringify(m));
    const parts = [...messages.slice(0, lead).map((m) => JSON.stringify(m)), keptText(s), fresh.join(",")].filter((t) => t !== "");
    this.keep(s, fresh);
    return `${JSON.stringify(rest).slice(0, -1)},"messages":[${parts.join(",")}]}`;
  }

  /** Keeps the groups of this request but its last, when the body holds one message for each group. */
  private keep(s: Splice, fresh: readonly string[]): void {
    const { kept } = s;
    kept.text = keptText(s);
    kept.groups.length = s.base;
    kept.messages.length = s.base > 0 ? kept.groups[s.base - 1]!.end : 0;
    const sizes = groupSizes(this.shape, s.fresh);
    if (sizes.length !== fresh.length) return;
    let at = 0;
    for (let i = 0; i < sizes.length - 1; i++) {
      kept.messages.push(...s.fresh.slice(at, (at += sizes[i]!)));
      kept.groups.push({ end: kept.messages.length, text: fresh[i]! });
      kept.text = kept.text === "" ? fresh[i]! : `${kept.text},${fresh[i]!}`;
    }
  }
}

/** The text of the kept groups a request starts from. */
function keptText(s: Splice): string {
  return s.base === s.kept.groups.length
    ? s.kept.text
    : s.kept.groups
        .slice(0, s.base)
        .map((g) => g.text)
        .join(",");
}

/** How many leading messages two lists share, by identity. */
function sharedLength(a: readonly LanguageModelV3Message[], b: readonly LanguageModelV3Message[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
