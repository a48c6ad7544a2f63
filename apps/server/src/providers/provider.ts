import type { Message, ToolDescriptor } from "@gatehouse/protocol";

export interface ModelToolCall {
  callId: string;
  toolName: string;
  args: Record<string, unknown>;
}

export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
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
