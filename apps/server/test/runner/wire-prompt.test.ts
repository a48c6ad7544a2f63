import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { Message, ToolDescriptor } from "@gatehouse/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelReplay } from "../../../../test/support/model-replay.js";
import { anthropic, openai } from "../../../../test/support/wire-formats.js";
import { modelHistory } from "../../src/runner/model-history.js";
import { AiSdkProvider } from "../../src/runner/providers/ai-sdk.js";
import { WirePrompts } from "../../src/runner/providers/wire-prompt.js";

const TOOLS: ToolDescriptor[] = [
  {
    name: "read_file",
    description: "Read a file.",
    tier: "read",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

const call = (id: string, path: string): Message => ({
  role: "assistant",
  text: "",
  toolCalls: [{ callId: id, toolName: "read_file", arguments: JSON.stringify({ path }) }],
});
const result = (id: string, content: string, isError = false): Message => ({ role: "tool", callId: id, toolName: "read_file", content, isError });

/** A session's messages in the order a session makes them: prompts, calls (one or several), results, words, a refusal. */
const SESSION: Message[][] = [
  [{ role: "user", text: "what is in a.txt?" }],
  [call("c1", "a.txt"), result("c1", "alpha\n")],
  [
    {
      role: "assistant",
      text: "Two more.",
      toolCalls: [
        { callId: "c2", toolName: "read_file", arguments: '{"path":"b.txt"}' },
        { callId: "c3", toolName: "read_file", arguments: '{"path":"c.txt"}' },
      ],
    },
    result("c2", 'beta "quoted" \u2028 text'),
    result("c3", "ToolRejectedError: the user rejected this read_file call. Feedback: not that one", true),
  ],
  [
    { role: "assistant", text: "a.txt says alpha.", toolCalls: [] },
    { role: "user", text: "and d.txt?" },
  ],
  [call("c4", "d.txt"), result("c4", "delta")],
  [
    { role: "user", text: "stop there" },
    { role: "user", text: "no, go on" },
  ],
  [call("c5", "e.txt"), result("c5", "epsilon")],
];

const FORMATS = [
  { api: "openai-compatible" as const, wire: openai },
  { api: "anthropic" as const, wire: anthropic },
];

let replay: ModelReplay;
beforeAll(async () => (replay = await ModelReplay.start()));
afterAll(() => replay.close());

describe.each(FORMATS)("requests of a growing $api conversation", (f) => {
  const provider = (retries = 0) => new AiSdkProvider({ api: f.api, provider: "p", model: "m", baseURL: replay.baseURL, apiKey: "sk-test" }, retries);
  const ask = (p: AiSdkProvider, history: Message[]) =>
    p.respond({ system: "You are a test.", history, tools: TOOLS, signal: new AbortController().signal, onText: () => undefined });

  /** The body `history` gets from a provider that has sent nothing before, which converts every message. */
  async function whole(history: Message[]): Promise<Record<string, unknown>> {
    replay.push(f.wire.stream(["ok"]));
    await ask(provider(), history);
    return replay.requests.at(-1)!.body;
  }

  it("each step's body is the one every message converted again would make", async () => {
    const p = provider();
    const history: Message[] = [];
    for (const step of SESSION) {
      history.push(...step);
      replay.push(f.wire.stream(["ok"]));
      await ask(p, modelHistory(history, 1000));
      const sent = replay.requests.at(-1)!;
      expect(sent.headers["x-gatehouse-wire-prompt"]).toBeUndefined();
      expect(sent.body).toEqual(await whole(modelHistory(history, 1000)));
    }
  });

  it("a history made again from other messages (a checkpoint, a cut turn's filled results) is sent as it now is", async () => {
    const p = provider();
    const history = SESSION.slice(0, 5).flat();
    replay.push(f.wire.stream(["ok"]));
    await ask(p, history);
    const rebuilt: Message[] = [{ role: "user", text: "Checkpoint: a.txt says alpha." }, ...history.slice(6).map((m) => ({ ...m }))];
    replay.push(f.wire.stream(["ok"]));
    await ask(p, rebuilt);
    expect(replay.requests.at(-1)!.body).toEqual(await whole(rebuilt));
    const cut = [...history, call("c9", "z.txt")];
    for (const next of [cut, [...cut, { role: "user", text: "go on" } as Message]]) {
      replay.push(f.wire.stream(["ok"]));
      await ask(p, modelHistory(next, 1000));
      expect(replay.requests.at(-1)!.body).toEqual(await whole(modelHistory(next, 1000)));
    }
  });

  it("a retried request sends the same body again", async () => {
    const p = provider(1);
    const history = SESSION.slice(0, 3).flat();
    replay.push(f.wire.stream(["ok"]));
    await ask(p, history.slice(0, 3));
    replay.push({ status: 429, headers: { "retry-after": "0" }, body: JSON.stringify({ error: { message: "slow down" } }) }, f.wire.stream(["ok"]));
    await ask(p, history);
    const [first, again] = replay.requests.slice(-2);
    expect(again!.body).toEqual(first!.body);
    expect(again!.body).toEqual(await whole(history));
  });
});

describe("what the provider is given to convert", () => {
  const system = { role: "system" as const, content: "You are a test." };
  const user = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }] });
  const assistant = (text: string) => ({ role: "assistant" as const, content: [{ type: "text" as const, text }] });

  it("only the messages no request sent before, and the body holds the earlier ones as they were sent", async () => {
    const bodies: string[] = [];
    const wire = new WirePrompts("openai-compatible", (_url, init) => {
      bodies.push(Buffer.concat(init!.body as Uint8Array[]).toString());
      return Promise.resolve(new Response("{}"));
    });
    const convert = (p: LanguageModelV3Prompt) =>
      JSON.stringify({ model: "m", messages: p.map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : "text" })) });
    const messages = [user("one"), assistant("two"), user("three"), assistant("four"), user("five")];
    const steps = [messages.slice(0, 1), messages.slice(0, 3), messages];
    const given: number[] = [];
    for (const step of steps) {
      const prepared = wire.prepare([system, ...step]);
      given.push(prepared.prompt.length - 1);
      await wire.fetch("http://127.0.0.1:1/v1/chat/completions", { method: "POST", headers: prepared.headers, body: convert(prepared.prompt) });
      prepared.done();
    }
    // The last message of a request is converted again by the next: Anthropic may join the next ones to it.
    expect(given).toEqual([1, 3, 3]);
    expect(JSON.parse(bodies.at(-1)!)).toEqual(JSON.parse(convert([system, ...messages])));
  });

  it("a request sends the earlier messages as they were when it was prepared, whatever another request of the conversation kept since", async () => {
    const bodies: string[] = [];
    const wire = new WirePrompts("openai-compatible", (_url, init) => {
      bodies.push(Buffer.concat(init!.body as Uint8Array[]).toString());
      return Promise.resolve(new Response("{}"));
    });
    const convert = (p: LanguageModelV3Prompt) =>
      JSON.stringify({
        model: "m",
        messages: p.map((m) => ({
          role: m.role,
          content: typeof m.content === "string" ? m.content : m.content.map((c) => ("text" in c ? c.text : "")).join(""),
        })),
      });
    const send = async (p: { prompt: LanguageModelV3Prompt; headers: Record<string, string> }) =>
      wire.fetch("http://127.0.0.1:1/v1/chat/completions", { method: "POST", headers: p.headers, body: convert(p.prompt) });
    const first = user("one");
    const long = [first, assistant("two"), user("three"), assistant("four"), user("five")];
    const grown = wire.prepare([system, ...long.slice(0, 4)]);
    await send(grown);
    const later = wire.prepare([system, ...long]);
    // Another request of the same conversation, from fewer of the same messages, is sent first.
    const other = wire.prepare([system, first, assistant("else")]);
    await send(other);
    await send(later);
    expect(bodies.map((b) => JSON.parse(b) as unknown)).toEqual(
      [long.slice(0, 4), [first, assistant("else")], long].map((m) => JSON.parse(convert([system, ...m])) as unknown),
    );
  });
});
