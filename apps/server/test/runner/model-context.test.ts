import { silentLog } from "@gatehouse/log";
import type { Message, SessionInfo } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { digest } from "../../src/runner/context-checkpoint.js";
import { EventHub } from "../../src/store/event-hub.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { ModelContext } from "../../src/runner/model-context.js";
import { NO_USAGE, type ModelRequest, type Provider } from "../../src/runner/providers/provider.js";

const SESSION: SessionInfo = { id: "s1", workerId: "w1", agent: "build", model: "lab:m", mode: "default", parentId: null, createdAt: "", status: "running" };

/** A model that records what it is sent and answers with text. */
class Recorder implements Provider {
  readonly name = "recorder";
  readonly sent: Message[][] = [];
  respond(req: ModelRequest) {
    this.sent.push(req.history);
    return Promise.resolve({ text: "ok", toolCalls: [], stopReason: "stop", usage: NO_USAGE });
  }
}

function contextFor(store: MemoryStore, window: number) {
  return new ModelContext({
    store,
    hub: new EventHub(store),
    log: silentLog,
    maxToolResultChars: 30_000,
    compactAt: 0.8,
    windowOf: () => window,
    summariserFor: () => digest,
  });
}

/** A call of `read_file` and its result of `chars` characters. */
const read = (i: number, chars: number, fill = "x"): Message[] => [
  { role: "assistant", text: "", toolCalls: [{ callId: `c${i}`, toolName: "read_file", arguments: `{"path":"f${i}"}` }] },
  { role: "tool", callId: `c${i}`, toolName: "read_file", content: `START${i}${fill.repeat(chars)}END${i}`, isError: false },
];

const ask = (context: ModelContext, provider: Provider, transcript: Message[]) =>
  context.respond(SESSION, provider, transcript, { system: "sys", tools: [], signal: new AbortController().signal, onText: () => undefined });

describe("what a session's model is sent near its context window", () => {
  it("old long tool results are trimmed to their start and end first, and trimming that is enough summarises nothing", async () => {
    const store = new MemoryStore();
    const transcript: Message[] = [{ role: "user", text: "go" }, ...read(1, 8_000), ...read(2, 8_000), ...read(3, 100)];
    const model = new Recorder();
    await ask(contextFor(store, 5_000), model, transcript);
    const [event] = (await store.eventsAfter(0)).map((e) => e.event);
    expect(event).toMatchObject({ type: "context_compacted", reason: "window", summary: null, summarisedThrough: 0, trimmedThrough: 5 });
    const sent = model.sent[0]!.map((m) => (m.role === "tool" ? m.content : ""));
    expect(sent[2]).toMatch(/^START1x{694}\n\[\.\.\. 6610 characters of this old result trimmed to fit the context window \.\.\.\]\nx{696}END1$/);
    expect(sent[6]).toBe(`START3${"x".repeat(100)}END3`);
  });

  it("a step converts only what is new, and a new process starts from the session's last checkpoint", async () => {
    const store = new MemoryStore();
    const transcript: Message[] = [{ role: "user", text: "go" }];
    for (let i = 0; i < 40; i++) transcript.push(...read(i, 1_000));
    const model = new Recorder();
    const context = contextFor(store, 8_000);
    await ask(context, model, transcript);
    transcript.push(...read(99, 10));
    await ask(context, model, transcript);
    const [first, second] = model.sent;
    expect(first![0]).toMatchObject({ role: "user", text: expect.stringContaining("[Checkpoint: the first") });
    expect(second!.slice(0, first!.length)).toEqual(first);
    expect(second![0]).toBe(first![0]);

    const again = new Recorder();
    await ask(contextFor(store, 8_000), again, await Promise.resolve([...transcript]));
    expect(again.sent[0]).toEqual(second);
  });
});
