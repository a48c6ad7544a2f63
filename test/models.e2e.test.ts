import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Cluster, Events } from "./support/cluster.js";
import { ModelReplay } from "./support/model-replay.js";
import { anthropic, openai } from "./support/wire-formats.js";

let cluster: Cluster | undefined;
let replay: ModelReplay;
beforeEach(async () => {
  replay = await ModelReplay.start();
});
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
  await replay.close();
});

/** A cluster whose default model is served by the replay, in the given wire format. */
async function start(api: "openai-compatible" | "anthropic", opts: { rules: string; files?: Record<string, string>; config?: Record<string, unknown> }) {
  cluster = await Cluster.start({
    rules: opts.rules,
    files: opts.files ?? {},
    config: { model: "replay:replay-model", providers: { replay: { api, baseURL: replay.baseURL, apiKeyEnv: "REPLAY_KEY" } }, ...opts.config },
    env: { REPLAY_KEY: "sk-replay-key" },
  });
  const client = cluster.client();
  const info = await client.session.create.mutate({ workerId: "w1" });
  expect(info.model).toBe("replay:replay-model");
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  return { client, id: info.id, events };
}

const sent = (i: number) => JSON.stringify(replay.requests[i]!.body);

describe("a session on a real model (a replayed endpoint)", () => {
  it("parallel calls are one batch, long results reach the model cut, usage and stop reasons are recorded", async () => {
    const s = await start("openai-compatible", {
      rules: `{"*": "ask", "read_file": "allow"}`,
      files: { "big.txt": "y".repeat(1000) },
      config: { maxToolResultChars: 200 },
    });
    replay.push(
      openai.stream(
        ["Reading and writing."],
        [
          { id: "call_r", name: "read_file", argumentPieces: ['{"path":', '"big.txt"}'] },
          { id: "call_w", name: "write_file", argumentPieces: ['{"path":"out.txt","content":"hi"}'] },
        ],
      ),
      openai.stream(["Done."], [], { prompt_tokens: 300, completion_tokens: 5 }),
    );
    await s.client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = await s.events.next("tool_approval_required");
    expect(ask).toMatchObject({ toolName: "write_file", callId: "call_w", batch: { index: 1, total: 2 } });
    await s.client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId });
    const ended = await s.events.next("turn_ended");
    expect(ended).toMatchObject({ reason: "completed", usage: { inputTokens: 420, outputTokens: 35 } });
    expect(s.events.of("assistant_message").map((m) => [m.stopReason, m.usage])).toEqual([
      ["tool_calls", { inputTokens: 120, outputTokens: 30 }],
      ["stop", { inputTokens: 300, outputTokens: 5 }],
    ]);
    expect(
      s.events
        .of("assistant_text_delta")
        .map((d) => d.text)
        .join(""),
    ).toBe("Reading and writing.Done.");
    expect(s.events.of("tool_result")[0]!.output).toHaveLength(1000);
    expect(sent(1)).toContain(`${"y".repeat(200)}\\n[... cut: 800 of 1000 characters not shown]`);
    expect(sent(1)).not.toContain("y".repeat(201));
    expect(fs.readFileSync(path.join(cluster!.workDir, "out.txt"), "utf8")).toBe("hi");
    expect(replay.requests[0]!.headers.authorization).toBe("Bearer sk-replay-key");
  });

  it("a provider failure is a session error in the provider's words, and the session takes the next prompt", async () => {
    const s = await start("anthropic", { rules: `{"*": "allow"}` });
    replay.push(anthropic.error(401, "authentication_error", "invalid x-api-key"));
    await s.client.agent.prompt.mutate({ sessionId: s.id, text: "first" });
    const error = await s.events.next("session_error");
    expect(error).toMatchObject({ code: "PROVIDER", message: "replay:replay-model: HTTP 401: invalid x-api-key" });
    expect((await s.events.next("turn_ended")).reason).toBe("error");
    replay.push(anthropic.stream(["Back again."]));
    expect(await s.client.agent.prompt.mutate({ sessionId: s.id, text: "second" })).toEqual({ accepted: true });
    await s.events.next("turn_ended", (e) => e.reason === "completed");
    expect(s.events.of("assistant_message").at(-1)!.message).toMatchObject({ text: "Back again." });
    expect(replay.requests[1]!.headers["x-api-key"]).toBe("sk-replay-key");
    expect(sent(1)).toContain("second");
  });

  it("a skill listed in the system prompt is loaded with the skill tool and followed", async () => {
    const s = await start("openai-compatible", {
      rules: `{"*": "allow"}`,
      files: {
        "skills/release-notes/SKILL.md":
          "---\ndescription: Write release notes into CHANGES.md\n---\nStart CHANGES.md with the line '## Release' and list each change under it.\n",
      },
    });
    replay.push(
      openai.stream([], [{ id: "call_s", name: "skill", argumentPieces: ['{"name":"release-notes"}'] }]),
      openai.stream([], [{ id: "call_w", name: "write_file", argumentPieces: ['{"path":"CHANGES.md","content":"## Release\\n- subagents\\n"}'] }]),
      openai.stream(["Release notes written."]),
    );
    await s.client.agent.prompt.mutate({ sessionId: s.id, text: "write the release notes" });
    await s.events.next("turn_ended", (e) => e.reason === "completed");
    const first = replay.requests[0]!.body as { messages: { role: string; content: string }[]; tools: { function: { name: string } }[] };
    expect(first.messages[0]).toMatchObject({ role: "system", content: expect.stringContaining("- release-notes: Write release notes into CHANGES.md") });
    expect(first.tools.map((t) => t.function.name)).toEqual(expect.arrayContaining(["skill", "task", "read_file"]));
    expect(sent(1)).toContain("Start CHANGES.md with the line '## Release'");
    expect(fs.readFileSync(path.join(cluster!.workDir, "CHANGES.md"), "utf8")).toBe("## Release\n- subagents\n");
  });

  it("a turn stops at the configured step limit", async () => {
    const s = await start("openai-compatible", { rules: `{"*": "allow"}`, config: { maxSteps: 2 } });
    const glob = () => openai.stream([], [{ id: `call_${replay.remaining}`, name: "glob", argumentPieces: ['{"pattern":"*"}'] }]);
    replay.push(glob(), glob(), glob());
    await s.client.agent.prompt.mutate({ sessionId: s.id, text: "loop" });
    expect((await s.events.next("turn_ended")).reason).toBe("step_limit");
    expect(replay.requests).toHaveLength(2);
  });

  it("a subagent runs on the agent's model when its file names one", async () => {
    const s = await start("openai-compatible", {
      rules: `{"*": "allow"}`,
      files: {
        "agents/summarizer.md":
          '---\ndescription: Summarises a file.\nmodel: replay:small-model\npermission:\n  "*": deny\n  read_file: allow\n---\nSummarise in one line.\n',
      },
    });
    replay.push(
      openai.stream([], [{ id: "call_t", name: "task", argumentPieces: ['{"agent":"summarizer","prompt":"summarise README"}'] }]),
      openai.stream(["A readme."]),
      openai.stream(["It is a readme."]),
    );
    await s.client.agent.prompt.mutate({ sessionId: s.id, text: "summarise" });
    await s.events.next("turn_ended", (e) => e.sessionId === s.id);
    const child = s.events.of("session_created").find((e) => e.session.parentId === s.id)!.session;
    expect(child).toMatchObject({ agent: "summarizer", model: "replay:small-model" });
    expect((replay.requests[1]!.body as { model: string }).model).toBe("small-model");
    expect(sent(1)).toContain("Summarise in one line.");
    expect(sent(0)).toContain("summarizer: Summarises a file.");
    expect(s.events.of("tool_result").find((r) => r.sessionId === s.id)).toMatchObject({ toolName: "task", ok: true, output: "A readme." });
  });
});

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");

/** Runs the CLI without blocking, so that the replay in this process can answer it. */
function gatehouse(args: string[], env: Record<string, string | undefined>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

describe("choosing a model on the command line", () => {
  it("gatehouse run --model with a base URL and a key variable runs the turn on that endpoint", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-run-model-"));
    fs.mkdirSync(path.join(dir, "work"));
    fs.writeFileSync(path.join(dir, "work", "a.txt"), "alpha");
    replay.push(openai.stream([], [{ id: "call_g", name: "glob", argumentPieces: ['{"pattern":"*.txt"}'] }]), openai.stream(["There is a.txt."]));
    const r = await gatehouse(
      [
        "run",
        "--prompt",
        "which files?",
        "--json",
        "--mode",
        "yolo",
        "--dir",
        path.join(dir, "work"),
        "--data-dir",
        path.join(dir, "data"),
        "--model",
        "lab:replay-model",
        "--base-url",
        replay.baseURL,
        "--api-key-env",
        "LAB_KEY",
      ],
      { LAB_KEY: "sk-lab", GATEHOUSE_MODEL: undefined },
    );
    fs.rmSync(dir, { recursive: true, force: true });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; output?: string; message?: { text: string } });
    expect(events.find((e) => e.type === "tool_result")?.output).toContain("a.txt");
    expect(events.filter((e) => e.type === "assistant_message").at(-1)?.message?.text).toBe("There is a.txt.");
    expect(replay.requests.map((q) => q.headers.authorization)).toEqual(["Bearer sk-lab", "Bearer sk-lab"]);
  });

  it("a model whose key variable is not set is a configuration error: one line, exit 2, nothing run", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-run-model-"));
    const r = await gatehouse(["run", "--prompt", "hi", "--dir", dir, "--data-dir", path.join(dir, "data"), "--model", "anthropic:claude-sonnet-4-5"], {
      ANTHROPIC_API_KEY: undefined,
      GATEHOUSE_MODEL: undefined,
    });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("gatehouse: model anthropic:claude-sonnet-4-5 needs an API key in the environment variable ANTHROPIC_API_KEY, which is not set\n");
    expect(r.stdout).toBe("");
  });
});
