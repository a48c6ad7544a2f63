// The server's CPU per model step: the history as the model receives it and one streamed response,
// against a local endpoint of each API shape (run as its own process, so its CPU is not counted),
// at several history lengths, beside the bare cost of serialising the request body sent (the floor).
// BENCH_PROFILE=DIR writes a CPU profile of the run there. Prints figures only.
import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { Session } from "node:inspector/promises";
import fs from "node:fs";
import os from "node:os";
import type { Message, ToolDescriptor } from "@gatehouse/protocol";
import { modelHistory } from "../apps/server/src/runner/model-history.js";
import { AiSdkProvider, type ModelEndpoint } from "../apps/server/src/runner/providers/ai-sdk.js";

const SIZES = process.env.BENCH_SIZES ? process.env.BENCH_SIZES.split(",").map(Number) : [1, 200, 600, 2000];
const STEPS = Number(process.env.BENCH_STEPS ?? 30);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
const FIRST_STEPS = 5;
const MAX_TOOL_RESULT_CHARS = 30_000;

const tools: ToolDescriptor[] = ["read_file", "write_file", "edit_file", "glob", "grep", "bash", "list_dir", "task"].map((name) => ({
  name,
  description: `The ${name} tool: what it does, what it returns and when to use it, in a few sentences as real tools describe themselves.`,
  tier: "read",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string", description: "a path inside the work directory" }, limit: { type: "integer", minimum: 1 } },
    required: ["path"],
    additionalProperties: false,
  },
}));
const SYSTEM = "You are a coding agent working in a repository through tools. ".repeat(40);
const RESULT = "export function example(a: number, b: number): number {\n  return a + b;\n}\n".repeat(8);

/** A session's messages after `n`: a prompt, then a call and its result, over and over. */
function step(history: Message[], i: number): void {
  const callId = `call_h${i}`;
  history.push({ role: "assistant", text: "", toolCalls: [{ callId, toolName: "read_file", arguments: `{"path":"src/file-${i}.ts"}` }] });
  history.push({ role: "tool", callId, toolName: "read_file", content: RESULT, isError: false });
}
function historyOf(n: number): Message[] {
  const history: Message[] = [{ role: "user", text: "Read every file under src and say what it does." }];
  for (let i = 0; history.length < n; i++) step(history, i);
  return history;
}

async function startEndpoint(): Promise<{ baseURL: string; stop(): void }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "model-endpoint.ts")], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout }).once("line", resolve));
  return { baseURL: `http://127.0.0.1:${line.trim()}/v1`, stop: () => child.kill() };
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One step: the history as the model receives it, one request and its streamed answer read. */
async function respond(provider: AiSdkProvider, history: Message[]): Promise<void> {
  await provider.respond({
    system: SYSTEM,
    history: modelHistory(history, MAX_TOOL_RESULT_CHARS),
    tools,
    signal: new AbortController().signal,
    onText: () => undefined,
  });
}

/**
 * Median CPU per step from a history of `size` messages on. The session goes on growing by a call
 * and its result each step, as a turn does, from `size` to `size + 2 * STEPS` messages; at size 1
 * only the prompt is sent each time. Before, `WARMUP` steps on a session of their own let the JIT
 * settle, as it has in a server that has run for a while. After, `FIRST_STEPS` steps each send the
 * same history as new objects, as a turn's first step does when it reads the session's messages
 * back from the store.
 */
async function measure(endpoint: ModelEndpoint, size: number): Promise<{ step: number; first: number }> {
  const provider = new AiSdkProvider(endpoint, 0);
  const scratch = historyOf(100);
  for (let i = 0; i < WARMUP; i++) {
    await respond(provider, scratch);
    step(scratch, 100 + i);
  }
  const history = historyOf(size);
  await respond(provider, history);
  const samples: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    if (size > 1) step(history, size + i);
    const before = cpuMs();
    await respond(provider, history);
    samples.push(cpuMs() - before);
  }
  const firsts: number[] = [];
  for (let i = 0; i < FIRST_STEPS; i++) {
    const before = cpuMs();
    await respond(
      provider,
      history.map((m) => ({ ...m })),
    );
    firsts.push(cpuMs() - before);
  }
  return { step: median(samples), first: median(firsts) };
}

/** The bare cost of `JSON.stringify` of the last request body, as received. */
async function floor(baseURL: string): Promise<number> {
  const body: unknown = await (await fetch(`${baseURL}/last`)).json();
  for (let i = 0; i < 5; i++) JSON.stringify(body);
  const samples: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    JSON.stringify(body);
    samples.push(performance.now() - t);
  }
  return median(samples);
}

const endpoint = await startEndpoint();
let profiler: Session | undefined;
if (process.env.BENCH_PROFILE) {
  profiler = new Session();
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.start");
}
console.log(`CPU per model step (median of ${STEPS}, after ${WARMUP} to warm up), ms; load average ${os.loadavg()[0]!.toFixed(1)}`);
console.log("api                | messages |    step |   floor | turn's first step");
for (const api of (process.env.BENCH_API ? [process.env.BENCH_API] : ["openai-compatible", "anthropic"]) as ModelEndpoint["api"][]) {
  const e: ModelEndpoint = { api, provider: "bench", model: "bench-model", baseURL: endpoint.baseURL, apiKey: "sk-bench" };
  for (const size of SIZES) {
    const cost = await measure(e, size);
    const bare = await floor(endpoint.baseURL);
    console.log(
      `${api.padEnd(18)} | ${String(size).padStart(8)} | ${cost.step.toFixed(2).padStart(7)} | ${bare.toFixed(2).padStart(7)} | ${cost.first.toFixed(2).padStart(7)}`,
    );
  }
}
if (profiler) {
  const { profile } = await profiler.post("Profiler.stop");
  fs.mkdirSync(process.env.BENCH_PROFILE!, { recursive: true });
  const file = path.join(process.env.BENCH_PROFILE!, `model-${Date.now()}.cpuprofile`);
  fs.writeFileSync(file, JSON.stringify(profile));
  console.log(`profile: ${file}`);
}
endpoint.stop();
