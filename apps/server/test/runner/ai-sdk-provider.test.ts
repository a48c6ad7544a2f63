import type { Message, ToolDescriptor } from "@gatehouse/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelReplay } from "../../../../test/support/model-replay.js";
import { anthropic, openai } from "../../../../test/support/wire-formats.js";
import { GatehouseError } from "../../src/errors.js";
import { AiSdkProvider } from "../../src/runner/providers/ai-sdk.js";
import type { ModelResponse } from "../../src/runner/providers/provider.js";

const TOOLS: ToolDescriptor[] = [
  {
    name: "read_file",
    description: "Read a file.",
    tier: "read",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "glob",
    description: "Find files.",
    tier: "read",
    inputSchema: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
  },
];

const HISTORY: Message[] = [
  { role: "user", text: "what is in a.txt?" },
  { role: "assistant", text: "Reading it.", toolCalls: [{ callId: "call_0", toolName: "read_file", arguments: '{"path":"a.txt"}' }] },
  {
    role: "tool",
    callId: "call_0",
    toolName: "read_file",
    content: "ToolRejectedError: the user rejected this read_file call. Feedback: not that one",
    isError: true,
  },
];

const FORMATS = [
  {
    api: "openai-compatible" as const,
    path: "/v1/chat/completions",
    wire: openai,
    badKey: openai.error(401, "Incorrect API key provided: sk-bad.", "invalid_api_key"),
    rateLimit: (retryAfter: string) => openai.error(429, "Rate limit reached for requests per min.", "rate_limit_exceeded", { "retry-after": retryAfter }),
    tooLong: openai.error(
      400,
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      "context_length_exceeded",
    ),
    malformed: { events: [openai.chunk({ role: "assistant", content: "Hi" }), 'data: {"choices": [ this is not json'] },
    stopReasons: { text: "stop", tools: "tool_calls" },
    usage: { inputTokens: 120, outputTokens: 30 },
  },
  {
    api: "anthropic" as const,
    path: "/v1/messages",
    wire: anthropic,
    badKey: anthropic.error(401, "authentication_error", "invalid x-api-key"),
    rateLimit: (retryAfter: string) =>
      anthropic.error(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit.", { "retry-after": retryAfter }),
    tooLong: anthropic.error(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
    malformed: anthropic.streamError("overloaded_error", "Overloaded"),
    stopReasons: { text: "end_turn", tools: "tool_use" },
    usage: { inputTokens: 200, outputTokens: 40 },
  },
];

let replay: ModelReplay;
beforeAll(async () => {
  replay = await ModelReplay.start();
});
afterAll(() => replay.close());
beforeEach(() => {
  replay.requests.length = 0;
});

describe.each(FORMATS)("the $api wire format, replayed", (f) => {
  const provider = (retries = 0) =>
    new AiSdkProvider({ api: f.api, provider: "replay", model: "replay-model", baseURL: replay.baseURL, apiKey: "sk-test" }, retries);
  const ask = async (p = provider()): Promise<{ response: ModelResponse; deltas: string[] }> => {
    const deltas: string[] = [];
    const response = await p.respond({
      system: "You are a test.",
      history: HISTORY,
      tools: TOOLS,
      signal: new AbortController().signal,
      onText: (t) => deltas.push(t),
    });
    return { response, deltas };
  };
  const failure = async (p = provider()): Promise<GatehouseError> => {
    const err = await ask(p).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GatehouseError);
    expect((err as GatehouseError).code).toBe("PROVIDER");
    return err as GatehouseError;
  };

  it("streams text as it arrives and reports the stop reason and usage", async () => {
    replay.push(f.wire.stream(["The file ", "says ", "hello."]));
    const { response, deltas } = await ask();
    expect(deltas).toEqual(["The file ", "says ", "hello."]);
    expect(response).toEqual({ text: "The file says hello.", toolCalls: [], stopReason: f.stopReasons.text, usage: f.usage });
    expect(replay.requests[0]!.path).toBe(f.path);
  });

  it("sends the system prompt, the tools' schemas and the history, a rejection and its feedback included", async () => {
    replay.push(f.wire.stream(["ok"]));
    await ask();
    const sent = JSON.stringify(replay.requests[0]!.body);
    expect(sent).toContain("You are a test.");
    expect(sent).toContain('"read_file"');
    expect(sent).toContain('"required":["pattern"]');
    expect(sent).toContain("Feedback: not that one");
    expect(sent).toContain("call_0");
  });

  it("asks for at most the configured output tokens", async () => {
    replay.push(f.wire.stream(["ok"]));
    await ask(new AiSdkProvider({ api: f.api, provider: "replay", model: "replay-model", baseURL: replay.baseURL, apiKey: "k" }, 0, 12_345));
    expect(replay.requests[0]!.body.max_tokens).toBe(12_345);
  });

  it("puts together a tool call whose arguments are split over chunks", async () => {
    replay.push(f.wire.stream(["Let me look."], [{ id: "call_a", name: "read_file", argumentPieces: ['{"pa', 'th": "src/', 'main.ts"}'] }]));
    const { response } = await ask();
    expect(response.toolCalls).toEqual([{ callId: "call_a", toolName: "read_file", args: { path: "src/main.ts" } }]);
    expect(response.stopReason).toBe(f.stopReasons.tools);
  });

  it("a call of a tool the model was not given, or with arguments that are not a JSON object, is marked unusable", async () => {
    replay.push(
      f.wire.stream(
        [],
        [
          { id: "call_x", name: "delete_everything", argumentPieces: ["{}"] },
          { id: "call_y", name: "glob", argumentPieces: ["[1, 2]"] },
        ],
      ),
    );
    const { response } = await ask();
    expect(response.toolCalls.map((c) => [c.callId, c.invalid])).toEqual([
      ["call_x", "the model's call could not be used: it names a tool it was not given, delete_everything"],
      ["call_y", "the model's arguments are not a JSON object"],
    ]);
  });

  it("returns two parallel tool calls of one response together, in order", async () => {
    replay.push(
      f.wire.stream(
        [],
        [
          { id: "call_1", name: "glob", argumentPieces: ['{"pattern":', '"**/*.ts"}'] },
          { id: "call_2", name: "read_file", argumentPieces: ['{"path":"README.md"}'] },
        ],
      ),
    );
    const { response } = await ask();
    expect(response.toolCalls.map((c) => [c.callId, c.toolName, c.args])).toEqual([
      ["call_1", "glob", { pattern: "**/*.ts" }],
      ["call_2", "read_file", { path: "README.md" }],
    ]);
  });

  it("a bad key: the provider's own message and status, not retried", async () => {
    replay.push(f.badKey);
    const err = await failure(provider(2));
    expect(err.message).toMatch(/HTTP 401/);
    expect(err.message).toContain(f.api === "anthropic" ? "invalid x-api-key" : "Incorrect API key provided");
    expect(replay.requests).toHaveLength(1);
  });

  it("a rate limit with retry-after is retried after the wait the provider asked for", async () => {
    replay.push(f.rateLimit("0.3"), f.wire.stream(["after the wait"]));
    const started = Date.now();
    const { response } = await ask(provider(2));
    expect(response.text).toBe("after the wait");
    expect(replay.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it("a rate limit that outlasts the retries says so, with the provider's message", async () => {
    replay.push(f.rateLimit("0"), f.rateLimit("0"));
    const err = await failure(provider(1));
    expect(err.message).toMatch(/HTTP 429: .*rate limit.*\(after 2 attempts\)/i);
    expect(replay.requests).toHaveLength(2);
  });

  it("a context that is too long: the provider's message", async () => {
    replay.push(f.tooLong);
    expect((await failure()).message).toMatch(/maximum context length|prompt is too long/);
  });

  it("a stream cut in the middle is an error, not a short answer", async () => {
    replay.push({ ...f.wire.stream(["Half ", "an ", "answer ", "that ", "never ", "ends."]), cutAfter: 4 });
    expect((await failure()).message).toBe("replay:replay-model: the response stream broke off: terminated");
  });

  it("a stream that ends cleanly before the model finished is an error too", async () => {
    replay.push({ events: f.wire.stream(["Only this"]).events!.slice(0, f.api === "anthropic" ? 4 : 2) });
    expect((await failure()).message).toMatch(/finish/);
  });

  it("a malformed stream is an error that says what the provider sent", async () => {
    replay.push(f.malformed);
    const err = await failure();
    if (f.api === "anthropic") expect(err.message).toBe("replay:replay-model: overloaded_error: Overloaded");
    else expect(err.message).toMatch(/JSON|parse/i);
  });

  it("an unreachable endpoint is a network error naming the address", async () => {
    const p = new AiSdkProvider({ api: f.api, provider: "replay", model: "m", baseURL: "http://127.0.0.1:9/v1", apiKey: "k" }, 0);
    expect((await failure(p)).message).toMatch(/127\.0\.0\.1:9|ECONNREFUSED|connect/i);
  });
});
