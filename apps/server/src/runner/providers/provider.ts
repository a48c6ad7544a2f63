import type { Message, ToolDescriptor, Usage } from "@gatehouse/protocol";
import { GatehouseError } from "../../errors.js";

export interface ModelToolCall {
  callId: string;
  toolName: string;
  args: Record<string, unknown>;
  /** Why the call cannot run (arguments that are not a JSON object, an unknown tool); it is answered with this. */
  invalid?: string;
}

export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
  /** Why the model stopped, in the provider's words. */
  stopReason: string;
  usage: Usage;
}

export interface ModelRequest {
  system: string;
  history: Message[];
  tools: ToolDescriptor[];
  signal: AbortSignal;
  /** Streams text as it arrives. */
  onText: (delta: string) => void;
}

/** A model: one response (text and tool calls) per request. */
export interface Provider {
  readonly name: string;
  respond(request: ModelRequest): Promise<ModelResponse>;
}

export const NO_USAGE: Usage = { inputTokens: null, outputTokens: null };

/** Providers' words for a request longer than the model's context window (OpenAI, Anthropic, vLLM, llama.cpp, Ollama). */
const TOO_LONG = /context[ _-]?(length|window|size)|prompt is too long|too many (input )?tokens|exceeds? .{0,40}(context|token)|maximum .{0,30}tokens/i;

/** The provider refused the request as longer than the model's context window; compacting the history and asking again may pass. */
export class ContextTooLongError extends GatehouseError {
  constructor(message: string) {
    super("PROVIDER", message);
    this.name = "ContextTooLongError";
  }

  static says(text: string): boolean {
    return TOO_LONG.test(text);
  }
}
