/**
 * Response streams in the providers' documented wire formats: OpenAI chat completions chunks
 * (`data: {...}` lines ending with `data: [DONE]`) and Anthropic messages events (`event:` and
 * `data:` pairs from message_start to message_stop).
 */
import type { ReplayResponse } from "./model-replay.js";

export interface Call {
  id: string;
  name: string;
  /** The arguments' JSON, sent in pieces to show a call split over chunks. */
  argumentPieces: string[];
}

const data = (o: unknown) => `data: ${JSON.stringify(o)}`;

export const openai = {
  chunk(delta: Record<string, unknown>, finish: string | null = null, usage?: { prompt_tokens: number; completion_tokens: number }): string {
    return data({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1_763_000_000,
      model: "replay-model",
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
    });
  },
  /** Text in the given pieces, then tool calls (each split as given), then the finish chunk with usage. */
  stream(text: string[], calls: Call[] = [], usage = { prompt_tokens: 120, completion_tokens: 30 }): ReplayResponse {
    const events = [openai.chunk({ role: "assistant", content: "" })];
    for (const piece of text) events.push(openai.chunk({ content: piece }));
    calls.forEach((c, index) => {
      events.push(openai.chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
      for (const piece of c.argumentPieces) events.push(openai.chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    events.push(openai.chunk({}, calls.length > 0 ? "tool_calls" : "stop", usage), "data: [DONE]");
    return { events };
  },
  error(status: number, message: string, code: string, headers: Record<string, string> = {}): ReplayResponse {
    return { status, headers, body: JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code } }) };
  },
};

const event = (name: string, o: unknown) => `event: ${name}\n${data(o)}`;

export const anthropic = {
  stream(text: string[], calls: Call[] = [], usage = { input_tokens: 200, output_tokens: 40 }): ReplayResponse {
    const events = [
      event("message_start", {
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          content: [],
          model: "replay-model",
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
        },
      }),
      event("ping", { type: "ping" }),
    ];
    let index = 0;
    if (text.length > 0) {
      events.push(event("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
      for (const piece of text) events.push(event("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }));
      events.push(event("content_block_stop", { type: "content_block_stop", index: index++ }));
    }
    for (const c of calls) {
      events.push(event("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } }));
      for (const piece of c.argumentPieces)
        events.push(event("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }));
      events.push(event("content_block_stop", { type: "content_block_stop", index: index++ }));
    }
    events.push(
      event("message_delta", {
        type: "message_delta",
        delta: { stop_reason: calls.length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      }),
      event("message_stop", { type: "message_stop" }),
    );
    return { events };
  },
  error(status: number, type: string, message: string, headers: Record<string, string> = {}): ReplayResponse {
    return { status, headers, body: JSON.stringify({ type: "error", error: { type, message } }) };
  },
  /** An error event in the middle of an accepted stream, as Anthropic sends when it overloads mid-answer. */
  streamError(type: string, message: string): ReplayResponse {
    const started = anthropic.stream(["Partial "]).events!.slice(0, 4);
    return { events: [...started, event("error", { type: "error", error: { type, message } })] };
  },
};
