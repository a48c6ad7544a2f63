import type { LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { AppendOnlyBytes } from "./append-only-bytes.js";
import { plainHeaders, type HttpRequestInit, type HttpSend } from "./http-fetch.js";

/** The wire format a provider's requests are written in. */
export type WireShape = "openai-compatible" | "anthropic";

/** The request header that names a request's splice; it never leaves the process. */
const HEADER = "x-gatehouse-wire-prompt";

/** Consecutive messages that become one message of the request body. */
interface Group {
  /** How many of the conversation's messages are kept once this group is. */
  end: number;
  /** Where its JSON text ends in the kept bytes. */
  bytes: number;
}

/** A conversation's leading messages as the endpoint received them. */
interface Kept {
  messages: LanguageModelV3Message[];
  groups: Group[];
  /**
   * The groups' JSON texts joined by commas, encoded once as they are added: a body sends a view of
   * them as it is, so the history is neither joined, copied nor encoded again at each step.
   */
  text: AppendOnlyBytes;
}

/** What one request sends: the kept groups it starts from and the messages the provider converts. */
interface Splice {
  kept: Kept;
  /** Groups of `kept` this request starts from. */
  base: number;
  /** Their text, as it was when the request was prepared. */
  text: Uint8Array;
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
    private readonly send: HttpSend,
  ) {}

  /** What to give the provider for `prompt` (a system message, then the conversation), and how to let go of it when the request is over. */
  prepare(prompt: LanguageModelV3Prompt): { prompt: LanguageModelV3Prompt; headers: Record<string, string>; done(): void } {
    const [system, ...messages] = prompt;
    if (!system || messages.length === 0) return { prompt, headers: {}, done: () => undefined };
    let kept = this.kept.get(messages[0]!);
    if (!kept) this.kept.set(messages[0]!, (kept = { messages: [], groups: [], text: new AppendOnlyBytes() }));
    const same = sharedLength(kept.messages, messages);
    let base = kept.groups.length;
    while (base > 0 && kept.groups[base - 1]!.end > same) base--;
    const start = base > 0 ? kept.groups[base - 1]!.end : 0;
    const id = String(++this.next);
    const text = kept.text.view(base > 0 ? kept.groups[base - 1]!.bytes : 0);
    this.splices.set(id, { kept, base, text, fresh: messages.slice(start) });
    return { prompt: [system, ...messages.slice(start)], headers: { [HEADER]: id }, done: () => this.splices.delete(id) };
  }

  /** The `fetch` the provider is given: the request's body gets the kept messages in front of the ones the provider converted. */
  readonly fetch = (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const headers = plainHeaders(init?.headers);
    const splice = this.splices.get(headers[HEADER] ?? "");
    delete headers[HEADER];
    const body = splice && typeof init?.body === "string" ? this.splice(splice, init.body) : init?.body;
    return this.send(input, { ...init, headers, body } as HttpRequestInit);
  };

  /** The body in three parts: what comes before the kept messages, their bytes as kept, and the new messages with the end. */
  private splice(s: Splice, text: string): Uint8Array[] {
    const { messages, ...rest } = JSON.parse(text) as { messages: unknown[] };
    // An OpenAI-compatible body starts its messages with the system prompt's.
    const lead = this.shape === "openai-compatible" ? 1 : 0;
    const first = messages
      .slice(0, lead)
      .map((m) => JSON.stringify(m))
      .join(",");
    const fresh = messages.slice(lead).map((m) => JSON.stringify(m));
    const kept = s.text;
    this.keep(s, fresh);
    const head = `${JSON.stringify(rest).slice(0, -1)},"messages":[${first}${first && kept.length > 0 ? "," : ""}`;
    const tail = `${(first || kept.length > 0) && fresh.length > 0 ? "," : ""}${fresh.join(",")}]}`;
    return [Buffer.from(head), kept, Buffer.from(tail)];
  }

  /** Keeps the groups of this request but its last, when the body holds one message for each group. */
  private keep(s: Splice, fresh: readonly string[]): void {
    const { kept } = s;
    // Another request of the conversation made it start from fewer messages since this one was prepared.
    if (s.base > kept.groups.length) return;
    if (s.base < kept.groups.length) {
      // Earlier requests may still be sending views of what is let go here: the kept text starts again from a copy.
      kept.text = kept.text.prefix(s.base > 0 ? kept.groups[s.base - 1]!.bytes : 0);
      kept.groups.length = s.base;
      kept.messages.length = s.base > 0 ? kept.groups[s.base - 1]!.end : 0;
    }
    const sizes = groupSizes(this.shape, s.fresh);
    if (sizes.length !== fresh.length) return;
    let at = 0;
    for (let i = 0; i < sizes.length - 1; i++) {
      kept.messages.push(...s.fresh.slice(at, (at += sizes[i]!)));
      kept.text.append(kept.text.length === 0 ? fresh[i]! : `,${fresh[i]!}`);
      kept.groups.push({ end: kept.messages.length, bytes: kept.text.length });
    }
  }
}

/** How many leading messages two lists share, by identity. */
function sharedLength(a: readonly LanguageModelV3Message[], b: readonly LanguageModelV3Message[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
