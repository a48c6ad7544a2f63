import fs from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_TOKEN, Cluster, Events, waitUntil } from "./support/cluster.js";
import { ModelReplay } from "./support/model-replay.js";
import { openai } from "./support/wire-formats.js";

/** JSON text `levels` objects deep, written by hand: JSON.stringify itself cannot write it. */
const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

/** A tRPC request over a plain WebSocket whose input is JSON text as given, and the reply to it. */
async function rawRequest(url: string, method: "query" | "mutation", procedure: string, inputText: string): Promise<Record<string, any>> {
  const socket = new WebSocket(`${url}?connectionParams=1`);
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  socket.send(JSON.stringify({ method: "connectionParams", data: { token: CLIENT_TOKEN } }));
  const reply = new Promise<Record<string, any>>((resolve) =>
    socket.on("message", (data) => {
      const text = String(data);
      if (text !== "PING") resolve(JSON.parse(text) as Record<string, any>);
    }),
  );
  socket.send(`{"id":1,"method":"${method}","params":{"path":"${procedure}","input":${inputText}}}`);
  try {
    return await reply;
  } finally {
    socket.close();
  }
}

let cluster: Cluster | undefined;
let replay: ModelReplay | undefined;
afterEach(async () => {
  await cluster?.stop();
  await replay?.close();
  cluster = replay = undefined;
});

describe("JSON nested too deep is refused where it enters, naming the field and the bound", () => {
  it("edited arguments or explained arguments 100,000 levels deep are refused, and the approval stays pending", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask"}` });
    const client = cluster.client();
    const s = await cluster.promptedSession(client, [{ toolCalls: [{ tool: "shell_exec", args: { command: "echo still-pending" } }] }, { text: "Done." }]);
    const ask = await s.events.next("tool_approval_required");
    const ids = `"sessionId":"${s.id}","approvalId":"${ask.approvalId}"`;
    for (const [method, procedure] of [
      ["query", "tool.checkEdit"],
      ["mutation", "tool.approve"],
    ] as const) {
      const reply = await rawRequest(cluster.url, method, procedure, `{${ids},"editedArguments":${deep(100_000)}}`);
      expect(reply.error, procedure).toMatchObject({
        message: "editedArguments: editedArguments is nested deeper than 64 levels of objects and arrays",
        data: { code: "BAD_REQUEST" },
      });
    }
    const explain = await rawRequest(cluster.url, "query", "permissions.explain", `{"workerId":"w1","tool":"read_file","args":${deep(100_000)}}`);
    expect(explain.error).toMatchObject({ message: "args: args is nested deeper than 64 levels of objects and arrays", data: { code: "BAD_REQUEST" } });
    const fine = await rawRequest(cluster.url, "query", "tool.checkEdit", `{${ids},"editedArguments":{"command":"echo edited","x":${deep(60)}}}`);
    expect(JSON.stringify(fine.error ?? null)).not.toMatch(/nested deeper/);
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId })).toEqual({ applied: true });
    expect(await s.events.next("tool_result")).toMatchObject({ outcome: "ok", output: "still-pending\n" });
  });

  it("a scenario nested 8,000 or 100,000 levels deep is a clear error on session.create, and the server goes on", async () => {
    cluster = await Cluster.start();
    const client = cluster.client();
    const files = {
      "deep.json": `{"steps":[{"toolCalls":[{"tool":"read_file","args":${deep(100_000)}}]}]}`,
      "deep.yaml": `steps: ${"[".repeat(8000)}${"]".repeat(8000)}\n`,
      "deep-args.yaml": `steps:\n  - toolCalls:\n      - tool: read_file\n        args:\n${Array.from({ length: 70 }, (_, i) => `${"  ".repeat(i + 5)}a:`).join("\n")} 1\n`,
    };
    const expected = {
      "deep.json": /deep\.json: the scenario is nested deeper than 72 levels of objects and arrays/,
      "deep.yaml": /deep\.yaml: the scenario is nested deeper than 72 levels of objects and arrays/,
      "deep-args.yaml": /steps\.0\.toolCalls\.0\.args: args is nested deeper than 64 levels/,
    };
    for (const [name, text] of Object.entries(files)) {
      const file = path.join(cluster.root, name);
      fs.writeFileSync(file, text);
      await expect(client.session.create.mutate({ workerId: "w1", scenario: file }), name).rejects.toThrow(expected[name as keyof typeof files]);
    }
    expect((await client.session.create.mutate({ workerId: "w1" })).status).toBe("idle");
  });

  it("a model's tool call 100,000 levels deep fails as invalid with the reason, and the turn goes on", async () => {
    replay = await ModelReplay.start();
    cluster = await Cluster.start({
      rules: `{"*": "allow"}`,
      config: { model: "replay:replay-model", providers: { replay: { api: "openai-compatible", baseURL: replay.baseURL, apiKeyEnv: "REPLAY_KEY" } } },
      env: { REPLAY_KEY: "sk-replay-key" },
    });
    const client = cluster.client();
    const info = await client.session.create.mutate({ workerId: "w1" });
    const events = new Events(client, { sessionId: info.id });
    await new Promise((r) => setTimeout(r, 100));
    replay.push(openai.stream(["Calling."], [{ id: "call_deep", name: "read_file", argumentPieces: [deep(100_000)] }]), openai.stream(["Carried on."]));
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    const result = await events.next("tool_result");
    expect(result).toMatchObject({ callId: "call_deep", outcome: expect.not.stringMatching(/^ok$/) });
    expect(JSON.stringify(result)).toMatch(/its arguments are nested deeper than 64 levels of objects and arrays/);
    expect(await events.next("turn_ended")).toMatchObject({ reason: "completed" });
    expect(events.of("session_error")).toEqual([]);
    await waitUntil(() => replay!.requests.length === 2, 5000, "the model's second request");
    expect(JSON.stringify(replay.requests[1]!.body)).toMatch(/nested deeper than 64 levels/);
  });
});
