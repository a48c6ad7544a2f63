import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3, LanguageModelV3StreamPart, LanguageModelV3ToolCall } from "@ai-sdk/provider";
import { textNestsDeeperThan, nestedTooDeep, type Usage } from "@gatehouse/protocol";
import { APICallError, RetryError } from "ai";
import { prepareRetries } from "ai/internal";
import { GatehouseError } from "../../errors.js";
import { ContextTooLongError, type ModelToolCall, type ModelRequest, type ModelResponse, type Provider } from "./provider.js";
import { providerPrompt, providerTools } from "./provider-prompt.js";
import { httpFetch } from "./http-fetch.js";
import { WirePrompts } from "./wire-prompt.js";

/** Where a model is served and how to reach it. */
export interface ModelEndpoint {
  /** The wire format the endpoint speaks. */
  api: "openai-compatible" | "anthropic";
  /** The provider's name in `provider:model`. */
  provider: string;
  model: string;
  baseURL?: string | undefined;
  apiKey?: string | undefined;
}

function languageModel(e: ModelEndpoint, fetch: typeof globalThis.fetch): LanguageModelV3 {
  if (e.api === "anthropic") return createAnthropic({ apiKey: e.apiKey ?? "", ...(e.baseURL ? { baseURL: e.baseURL } : {}), fetch })(e.model);
  if (!e.baseURL) throw new GatehouseError("CONFIG", `provider ${e.provider} needs a base URL`);
  return createOpenAICompatible({ name: e.provider, baseURL: e.baseURL, ...(e.apiKey ? { apiKey: e.apiKey } : {}), includeUsage: true, fetch })(e.model);
}

/** A request the provider refused (HTTP 400 or 413) in words that say it is longer than the context window. */
function refusedAsTooLong(err: unknown): boolean {
  const last = RetryError.isInstance(err) ? err.lastError : err;
  if (!APICallError.isInstance(last) || (last.statusCode !== 400 && last.statusCode !== 413)) return false;
  return ContextTooLongError.says(`${last.message} ${last.responseBody ?? ""}`);
}

/** The provider's own words for a failure, with the HTTP status when there was one, on one line. */
export function providerMessage(err: unknown): string {
  const last = RetryError.isInstance(err) ? err.lastError : err;
  const attempts = RetryError.isInstance(err) && err.errors.length > 1 ? ` (after ${err.errors.length} attempts)` : "";
  let text = describe(last);
  if (APICallError.isInstance(last)) {
    const cause = last.cause instanceof Error ? `: ${last.cause.message}` : "";
    text = last.statusCode === 200 ? `the response stream broke off${cause}` : `${last.statusCode ? `HTTP ${last.statusCode}: ` : ""}${last.message}`;
  }
  const line = text.split("\n")[0]!.trim();
  return `${line.length > 400 ? `${line.slice(0, 400)}…` : line}${attempts}`;
}

/** An error the stream carried: an Error, or a provider's error object such as `{ type, message }`. */
function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err !== null && typeof err === "object") {
    const o = err as { type?: unknown; message?: unknown; error?: unknown };
    if (typeof o.message === "string") return typeof o.type === "string" ? `${o.type}: ${o.message}` : o.message;
    if (o.error !== undefined) return describe(o.error);
    return JSON.stringify(err);
  }
  return String(err);
}

/** A tool call as the provider parsed it; its input is the model's JSON text. */
function toolCall(part: LanguageModelV3ToolCall, offered: ReadonlySet<string>): ModelToolCall {
  let input: unknown;
  let parseError: string | undefined;
  const tooDeep = textNestsDeeperThan(part.input);
  try {
    input = part.input.trim() === "" || tooDeep ? {} : JSON.parse(part.input);
  } catch (err) {
    parseError = (err as Error).message;
  }
  const args = input !== null && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const call: ModelToolCall = { callId: part.toolCallId, toolName: part.toolName, args };
  if (!offered.has(part.toolName)) call.invalid = `the model's call could not be used: it names a tool it was not given, ${part.toolName}`;
  else if (tooDeep) call.invalid = `the model's call could not be used: its arguments are ${nestedTooDeep()}`;
  else if (parseError !== undefined) call.invalid = `the model's call could not be used: its arguments are not valid JSON (${parseError})`;
  else if (args !== input) call.invalid = "the model's arguments are not a JSON object";
  return call;
}

const count = (n: number | undefined) => n ?? null;

/** What a response stream carried, as it was read. */
interface Reading {
  text: string;
  toolCalls: ModelToolCall[];
  /** The provider's own finish reason; a stream without one was cut short. */
  stopReason: string | null;
  usage: Usage;
}

/**
 * A real model through the AI SDK's provider layer: OpenAI-compatible chat completions or
 * Anthropic messages, streamed. The prompt goes to the provider's `doStream` in the providers'
 * own form, made message by message (see provider-prompt.ts), with the SDK's retries around it:
 * the SDK's top layer checks and converts the whole history on every step, which made a step's
 * cost grow with the session's length. The messages earlier requests sent are kept as the body's
 * text and the provider converts only the new ones (see wire-prompt.ts).
 */
export class AiSdkProvider implements Provider {
  readonly name: string;
  private readonly model: LanguageModelV3;
  private readonly wire: WirePrompts;

  constructor(
    endpoint: ModelEndpoint,
    private readonly maxRetries: number,
    private readonly maxOutputTokens?: number,
  ) {
    this.name = `${endpoint.provider}:${endpoint.model}`;
    this.wire = new WirePrompts(endpoint.api, httpFetch);
    this.model = languageModel(endpoint, this.wire.fetch);
  }

  async respond(req: ModelRequest): Promise<ModelResponse> {
    const { retry } = prepareRetries({ maxRetries: this.maxRetries, abortSignal: req.signal });
    const reading: Reading = { text: "", toolCalls: [], stopReason: null, usage: { inputTokens: null, outputTokens: null } };
    const wire = this.wire.prepare(providerPrompt(req.system, req.history));
    try {
      const { stream } = await retry(() =>
        this.model.doStream({
          prompt: wire.prompt,
          headers: wire.headers,
          tools: providerTools(req.tools),
          abortSignal: req.signal,
          ...(this.maxOutputTokens ? { maxOutputTokens: this.maxOutputTokens } : {}),
        }),
      );
      const offered = new Set(req.tools.map((t) => t.name));
      for await (const part of stream as AsyncIterable<LanguageModelV3StreamPart>) read(reading, part, req, offered);
    } catch (err) {
      if (err instanceof GatehouseError) throw err;
      if (req.signal.aborted) throw new GatehouseError("ABORTED", "the model was stopped");
      const message = `${this.name}: ${providerMessage(err)}`;
      throw refusedAsTooLong(err) ? new ContextTooLongError(message) : new GatehouseError("PROVIDER", message);
    } finally {
      wire.done();
    }
    if (req.signal.aborted) throw new GatehouseError("ABORTED", "the model was stopped");
    if (reading.stopReason === null) {
      throw new GatehouseError("PROVIDER", `${this.name}: the response stream ended before the model finished`);
    }
    return { ...reading, stopReason: reading.stopReason };
  }
}

function read(reading: Reading, part: LanguageModelV3StreamPart, req: ModelRequest, offered: ReadonlySet<string>): void {
  if (part.type === "text-delta") {
    reading.text += part.delta;
    req.onText(part.delta);
  } else if (part.type === "tool-call") reading.toolCalls.push(toolCall(part, offered));
  else if (part.type === "finish") {
    reading.stopReason = part.finishReason.raw ?? null;
    reading.usage = { inputTokens: count(part.usage.inputTokens.total), outputTokens: count(part.usage.outputTokens.total) };
  } else if (part.type === "error") throw part.error;
}
