import { z } from "zod";
import { killGroup } from "../process-group.js";
import { defineTool, limitOutput, OUTPUT_LIMIT } from "../tool.js";

const CAPTURE_LIMIT = 1_000_000;

export const shellExec = defineTool({
  name: "shell_exec",
  description: "Run a bash command in the work directory. Returns its output, its stderr and its exit code.",
  tier: "exec",
  input: z.object({ command: z.string().min(1, "command must not be empty"), timeout_ms: z.number().int().positive().optional() }),
  async run(args, ctx) {
    const child = await ctx.spawnShell(args.command);
    // Aborted while the sandbox was being prepared: the command is ended before it can do anything.
    if (ctx.signal.aborted) killGroup(child.pid);
    return new Promise((resolve) => {
      let stdout = "";
      let stderr = "";
      let ended: string | null = null;
      let timedOut = false;
      child.stdout!.setEncoding("utf8");
      child.stderr!.setEncoding("utf8");
      child.stdout!.on("data", (d: string) => {
        stdout = (stdout + d).slice(0, CAPTURE_LIMIT);
        ctx.onOutput?.(d);
      });
      child.stderr!.on("data", (d: string) => {
        stderr = (stderr + d).slice(0, CAPTURE_LIMIT);
        ctx.onOutput?.(d);
      });
      const stop = (why: string) => {
        ended = why;
        killGroup(child.pid);
      };
      const timer = setTimeout(
        () => {
          timedOut = true;
          stop(`timed out after ${args.timeout_ms ?? ctx.timeoutMs} ms`);
        },
        Math.min(args.timeout_ms ?? ctx.timeoutMs, ctx.timeoutMs),
      );
      const onAbort = () => stop("aborted");
      ctx.signal.addEventListener("abort", onAbort);
      const finish = (code: number | null, error?: Error, tidied: string[] = []) => {
        clearTimeout(timer);
        ctx.signal.removeEventListener("abort", onAbort);
        killGroup(child.pid);
        const note = (ended ? `\n[${ended}; the process group was killed]` : error ? `\n[${error.message}]` : "") + tidied.map((t) => `\n[${t}]`).join("");
        const truncated = stdout.length > OUTPUT_LIMIT || stderr.length > OUTPUT_LIMIT;
        resolve({
          ok: code === 0 && !ended,
          output: `${limitOutput(stdout)}${note}`,
          exitCode: code,
          ...(stderr ? { stderr: limitOutput(stderr) } : {}),
          ...(truncated ? { truncated } : {}),
          ...(timedOut ? { timedOut } : {}),
        });
      };
      child.on("error", (e) => finish(null, e));
      // What the worker undid after the command is said with its result.
      child.on("close", (code) => void (child.settled ?? Promise.resolve([])).then((tidied) => finish(code, undefined, tidied)));
    });
  },
});
