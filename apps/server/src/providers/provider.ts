import type { Message, ToolDescriptor, Usage } from "@gatehouse/protocol";

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
