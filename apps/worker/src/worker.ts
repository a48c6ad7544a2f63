import fs from "node:fs";
import path from "node:path";
import type { ToolDescriptor, WorkerMessage } from "@gatehouse/protocol";
import { closeClient } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { z } from "zod";
import { FileGuard, ToolRefused } from "./file-guard.js";
import type { Tool, ToolResult } from "./tool.js";
import { BUILTIN_TOOLS } from "./tools/index.js";
import { SKILLS_DIR } from "./tools/skill.js";

export interface WorkerOptions {
  server: string;
  token: string;
  id: string;
  dir: string;
  tools?: readonly Tool[];
  heartbeatMs?: number;
  log?: (line: string) => void;
}

export interface RunningWorker {
  close(): Promise<void>;
}

type RunMessage = Extract<WorkerMessage, { type: "run" }>;

function descriptor(tool: Tool): ToolDescriptor {
  return { name: tool.name, description: tool.description, tier: tool.tier, inputSchema: z.toJSONSchema(tool.input) as Record<string, unknown> };
}

function listSkills(dir: string): { name: string; description: string }[] {
  const root = path.join(dir, SKILLS_DIR);
  const entries = fs.existsSync(root) ? fs.readdirSync(root, { withFileTypes: true }) : [];
  return entries.flatMap((e) => {
    const file = e.isDirectory() ? path.join(root, e.name, "SKILL.md") : e.name.endsWith(".md") ? path.join(root, e.name) : null;
    if (!file || !fs.existsSync(file)) return [];
    const description = /^description:\s*(.+)$/m.exec(fs.readFileSync(file, "utf8"))?.[1]?.trim() ?? "";
    return [{ name: e.isDirectory() ? e.name : e.name.slice(0, -3), description }];
  });
}

/** Runs one tool call: arguments checked, files guarded, output limited, time bounded. */
export async function runTool(tools: readonly Tool[], msg: RunMessage, workDir: string, signal: AbortSignal): Promise<ToolResult> {
  const tool = tools.find((t) => t.name === msg.toolName);
  if (!tool) return { ok: false, output: `this worker has no tool named ${msg.toolName}` };
  const parsed = tool.input.safeParse(msg.args);
  if (!parsed.success) return { ok: false, output: `invalid arguments for ${tool.name}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ")}` };
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), msg.timeoutMs);
  const both = AbortSignal.any([signal, timeout.signal]);
  try {
    const ctx = { workDir, guard: new FileGuard(msg.guard, workDir), signal: both, timeoutMs: msg.timeoutMs };
    const stopped = new Promise<ToolResult>((resolve) => both.addEventListener("abort", () => resolve({ ok: false, output: signal.aborted ? "the call was aborted" : `${tool.name} timed out after ${msg.timeoutMs} ms` }), { once: true }));
    return await Promise.race([tool.run(parsed.data, ctx), stopped]);
  } catch (err) {
    if (err instanceof ToolRefused) return { ok: false, output: err.message };
    return { ok: false, output: `${tool.name} failed: ${(err as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}

/** Connects to a server, registers, and runs the tool calls it sends until closed. */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const workDir = fs.realpathSync(path.resolve(opts.dir));
  const tools = opts.tools ?? BUILTIN_TOOLS;
  const log = opts.log ?? (() => undefined);
  const running = new Map<string, AbortController>();
  let closed = false;
  const client = createNodeClient({
    url: opts.server,
    token: opts.token,
    transport: "split",
    onOpen: () => log(`connected to ${opts.server}`),
    onClose: () => {
      if (running.size > 0) log(`connection lost: killing ${running.size} running call(s)`);
      for (const c of running.values()) c.abort();
      running.clear();
    },
  });
  const registration = { workerId: opts.id, workDir, tools: tools.map(descriptor), agents: [], skills: listSkills(workDir) };

  const handle = (msg: WorkerMessage) => {
    if (msg.type === "cancel") return running.get(msg.requestId)?.abort();
    const controller = new AbortController();
    running.set(msg.requestId, controller);
    void runTool(tools, msg, workDir, controller.signal).then(async (result) => {
      if (!running.delete(msg.requestId) && controller.signal.aborted) return;
      await client.worker.result.mutate({ workerId: opts.id, requestId: msg.requestId, ...result }).catch((err: Error) => log(`could not send a result: ${err.message}`));
    });
  };

  let subscription: { unsubscribe(): void } | undefined;
  let attempt = 0;
  const connect = async (): Promise<void> => {
    if (closed) return;
    try {
      await client.worker.register.mutate(registration);
      attempt = 0;
      subscription?.unsubscribe();
      subscription = client.worker.onToolRequests.subscribe(
        { workerId: opts.id },
        {
          onData: handle,
          onError: (err) => {
            log(`tool requests stopped: ${err.message}`);
            retry();
          },
        },
      );
    } catch (err) {
      log(`could not register: ${(err as Error).message}`);
      retry();
    }
  };
  const retry = () => {
    if (closed) return;
    const delay = Math.min(5000, 200 * 2 ** attempt++);
    setTimeout(() => void connect(), delay).unref();
  };
  await connect();
  const heartbeat = setInterval(() => void client.worker.heartbeat.mutate({ workerId: opts.id }).catch(() => undefined), opts.heartbeatMs ?? 1000);
  return {
    close: async () => {
      closed = true;
      clearInterval(heartbeat);
      subscription?.unsubscribe();
      for (const c of running.values()) c.abort();
      await closeClient(client);
    },
  };
}
