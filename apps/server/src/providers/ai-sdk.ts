import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { Message, ToolDescriptor, Usage } from "@gatehouse/protocol";
import { APICallError, jsonSchema, RetryError, streamText, tool, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import { GatehouseError } from "../errors.js";
import type { ModelToolCall, ModelRequest, ModelResponse, Provider } from "./provider.js";

// The SDK prints compatibility notes to the console; the server's output is its own structured log.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

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

function languageModel(e: ModelEndpoint): LanguageModel {
  if (e.api === "anthropic") return createAnthropic({ apiKey: e.apiKey ?? "", ...(e.baseURL ? { baseURL: e.baseURL } : {}) })(e.model);
  if (!e.baseURL) throw new GatehouseError("CONFIG", `provider ${e.provider} needs a base URL`);
  return createOpenAICompatible({ name: e.provider, baseURL: e.baseURL, ...(e.apiKey ? { apiKey: e.apiKey } : {}), includeUsage: true })(e.model);
}

function toolSet(tools: readonly ToolDescriptor[]): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) set[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema as Parameters<typeof jsonSchema>[0]) });
  return set;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function modelMessage(m: Message): ModelMessage | null {
  if (m.role === "user") return { role: "user", content: m.text };
  if (m.role === "tool") {
    const output = m.isError ? { type: "error-text" as const, value: m.content } : { type: "text" as const, value: m.content };
    return { role: "tool", content: [{ type: "tool-result", toolCallId: m.callId, toolName: m.toolName, output }] };
  }
  const content = [
    ...(m.text ? [{ type: "text" as const, text: m.text }] : []),
    ...m.toolCalls.map((c) => ({ type: "tool-call" as const, toolCallId: c.callId, toolName: c.toolName, input: parseArguments(c.arguments) })),
  ];
  return content.length > 0 ? { role: "assistant", content } : null;
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

function toolCall(part: { toolCallId: string; toolName: string; input: unknown; invalid?: boolean; error?: unknown }): ModelToolCall {
  const args = part.input !== null && typeof part.input === "object" && !Array.isArray(part.input) ? (part.input as Record<string, unknown>) : {};
  const call: ModelToolCall = { callId: part.toolCallId, toolName: part.toolName, args };
  if (part.invalid) call.invalid = `the model's call could not be used: ${part.error instanceof Error ? part.error.message : "invalid arguments"}`;
  else if (args !== part.input) call.invalid = "the model's arguments are not a JSON object";
  return call;
}

const count = (n: number | undefined) => n ?? null;

/** A real model through the AI SDK: OpenAI-compatible chat completions or Anthropic messages, streamed. */
export class AiSdkProvider implements Provider {
  readonly name: string;
  private readonly model: LanguageModel;

  constructor(
    endpoint: ModelEndpoint,
    private readonly maxRetries: number,
    private readonly maxOutputTokens?: number,
  ) {
    this.name = `${endpoint.provider}:${endpoint.model}`;
    this.model = languageModel(endpoint);
  }

  async respond(req: ModelRequest): Promise<ModelResponse> {
    const result = streamText({
      model: this.model,
      system: req.system,
      messages: req.history.map(modelMessage).filter((m): m is ModelMessage => m !== null),
      tools: toolSet(req.tools),
      abortSignal: req.signal,
      maxRetries: this.maxRetries,
      ...(this.maxOutputTokens ? { maxOutputTokens: this.maxOutputTokens } : {}),
      onError: () => undefined,
    });
    let text = "";
    const toolCalls: ModelToolCall[] = [];
    /** The provider's own finish reason; a stream without one was cut short, whatever the SDK made of it. */
    let stopReason: string | null = null;
    let usage: Usage = { inputTokens: null, outputTokens: null };
    try {
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") {
          text += part.text;
          req.onText(part.text);
        } else if (part.type === "tool-call") toolCalls.push(toolCall(part));
        else if (part.type === "finish") {
          stopReason = part.rawFinishReason ?? null;
          usage = { inputTokens: count(part.totalUsage.inputTokens), outputTokens: count(part.totalUsage.outputTokens) };
        } else if (part.type === "error") throw part.error;
        else if (part.type === "abort") throw new GatehouseError("ABORTED", "the model was stopped");
      }
    } catch (err) {
      if (err instanceof GatehouseError) throw err;
      if (req.signal.aborted) throw new GatehouseError("ABORTED", "the model was stopped");
      throw new GatehouseError("PROVIDER", `${this.name}: ${providerMessage(err)}`);
    }
    if (stopReason === null) {
      throw new GatehouseError("PROVIDER", `${this.name}: the response stream ended before the model finished`);
    }
    return { text, toolCalls, stopReason, usage };
  }
}
