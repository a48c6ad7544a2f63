import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events } from "./support/cluster.js";
import { ModelReplay } from "./support/model-replay.js";
import { anthropic, openai } from "./support/wire-formats.js";

let cluster: Cluster | undefined;
let replay: ModelReplay | undefined;
afterEach(async () => {
  await cluster?.stop();
  await replay?.close();
  cluster = undefined;
  replay = undefined;
});

const RULES = `{"*": "allow", "write_file": "deny"}`;
const DENIED = "ToolDeniedError: the permission rules deny this write_file call";
const nine = (tool: string, args: Record<string, unknown>) => Array.from({ length: 9 }, () => ({ tool, args }));

async function session(c: Cluster, scenario?: string) {
  const client = c.client();
  const info = await client.session.create.mutate({ workerId: "w1", ...(scenario && { scenario }) });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  return { client, id: info.id, events };
}

describe("a session near its model's context window", () => {
  it("a scripted session of 2,000 messages completes, compacted, with its denial kept and its whole history stored", async () => {
    cluster = await Cluster.start({
      rules: RULES,
      files: { "part.txt": "p".repeat(3_000) },
      config: { maxSteps: 10_000, context: { windows: { scripted: 20_000 } } },
    });
    const steps = [
      { toolCalls: [{ tool: "write_file", args: { path: "x.txt", content: "no" } }] },
      ...Array.from({ length: 222 }, () => ({ toolCalls: nine("read_file", { path: "part.txt" }) })),
      { text: "{{lastUser}}" },
    ];
    const s = await session(cluster, cluster.scenario("long", steps));
    await s.client.agent.prompt.mutate({ sessionId: s.id, text: "read part.txt over and over" });
    await s.events.next("turn_ended", undefined, 300_000);
    expect(s.events.of("turn_ended")[0]!.reason).toBe("completed");
    const { history } = await s.client.session.get.query({ sessionId: s.id });
    expect(history).toHaveLength(1 + 2 + 222 * 10 + 1);
    const compactions = s.events.of("context_compacted");
    expect(compactions.length).toBeGreaterThan(1);
    expect(compactions.every((e) => e.reason === "window" && e.tokensAfter < e.tokensBefore)).toBe(true);
    const last = compactions.at(-1)!;
    expect(last.summarisedThrough).toBeGreaterThan(1_900);
    expect(last.refusals).toEqual([expect.stringContaining(DENIED)]);
    // The last step echoes what the model was last told as a user message: the checkpoint.
    const denial = history.find((m) => m.role === "tool" && m.toolName === "write_file");
    const answer = s.events.of("assistant_message").at(-1)!.message as { text: string };
    expect(answer.text).toContain("[Checkpoint: the first");
    expect(answer.text).toContain(`write_file {"path":"x.txt","content":"no"}: ${denial?.role === "tool" ? denial.content : "?"}`);
    expect(answer.text).toContain("The user asked:\n- read part.txt over and over");
  }, 320_000);

  it("the request after a compaction holds the model's checkpoint and every denial, and the event reaches clients", async () => {
    replay = await ModelReplay.start();
    let step = 0;
    let summaries = 0;
    replay.route = (body) => {
      if (!body.tools) return openai.stream([`SUMMARY-${++summaries}: files were read.`]);
      step++;
      if (step === 1) return openai.stream([], [{ id: "call_w", name: "write_file", argumentPieces: ['{"path":"x.txt","content":"no"}'] }]);
      if (step <= 6)
        return openai.stream(
          [],
          Array.from({ length: 9 }, (_, i) => ({ id: `call_${step}_${i}`, name: "read_file", argumentPieces: ['{"path":"part.txt"}'] })),
        );
      return openai.stream(["Done."]);
    };
    cluster = await Cluster.start({
      rules: RULES,
      files: { "part.txt": "q".repeat(1_900) },
      config: {
        model: "replay:replay-model",
        providers: { replay: { api: "openai-compatible", baseURL: replay.baseURL } },
        context: { windows: { "replay:replay-model": 20_000 } },
      },
    });
    const s = await session(cluster);
    await s.client.agent.prompt.mutate({ sessionId: s.id, text: "read part.txt" });
    const compacted = await s.events.next("context_compacted", undefined, 60_000);
    expect(compacted).toMatchObject({ reason: "window", summary: "SUMMARY-1: files were read." });
    expect(compacted.refusals).toEqual([expect.stringContaining(`write_file {"path":"x.txt","content":"no"}: ${DENIED}`)]);
    expect((await s.events.next("turn_ended", undefined, 60_000)).reason).toBe("completed");

    const asked = replay.requests.map((r) => r.body as { tools?: unknown; messages: { role: string; content: string | null }[] });
    const at = asked.findIndex((b) => !b.tools);
    expect(JSON.stringify(asked[at]!.messages)).toContain("RESULT of read_file");
    const after = asked[at + 1]!;
    expect(after.tools).toBeDefined();
    expect(after.messages[1]!.role).toBe("user");
    expect(after.messages[1]!.content).toContain("[Checkpoint: the first");
    expect(after.messages[1]!.content).toContain("SUMMARY-1: files were read.");
    expect(after.messages[1]!.content).toContain(DENIED);
    const { history } = await s.client.session.get.query({ sessionId: s.id });
    expect(history).toHaveLength(1 + 2 + 5 * 10 + 1);
    expect(after.messages.length).toBeLessThan(at + 40);
  }, 120_000);

  it("a provider that refuses a request as too long gets one compaction and the request again, and the session goes on", async () => {
    replay = await ModelReplay.start();
    const answers = [
      anthropic.stream([], [{ id: "call_r", name: "read_file", argumentPieces: ['{"path":"part.txt"}'] }]),
      anthropic.stream(["First done."]),
      anthropic.error(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
      anthropic.stream(["Second done."]),
    ];
    replay.route = (body) => (body.tools ? answers.shift() : anthropic.stream(["SUMMARY: part.txt was read."]));
    cluster = await Cluster.start({
      rules: RULES,
      files: { "part.txt": "r".repeat(500) },
      config: { model: "replay:replay-model", providers: { replay: { api: "anthropic", baseURL: replay.baseURL, apiKeyEnv: "REPLAY_KEY" } } },
      env: { REPLAY_KEY: "sk-replay" },
    });
    const s = await session(cluster);
    await s.client.agent.prompt.mutate({ sessionId: s.id, text: "first" });
    await s.events.next("turn_ended", undefined, 60_000);
    await s.client.agent.prompt.mutate({ sessionId: s.id, text: "second" });
    const ended = await s.events.next("turn_ended", (e) => s.events.of("turn_ended").indexOf(e) === 1, 60_000);
    expect(ended.reason).toBe("completed");
    expect(s.events.of("session_error")).toEqual([]);
    expect(await s.events.next("context_compacted")).toMatchObject({ reason: "refused", summarisedThrough: 4, summary: "SUMMARY: part.txt was read." });
    const retried = JSON.stringify(replay.requests.at(-1)!.body);
    expect(retried).toContain("[Checkpoint: the first 4 messages");
    expect(retried).toContain("second");
    expect(retried).not.toContain("r".repeat(500));
    expect(s.events.of("assistant_message").at(-1)!.message).toMatchObject({ text: "Second done." });
  }, 120_000);
});
