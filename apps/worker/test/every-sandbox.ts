import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { FileGuard } from "../src/file-guard.js";
import { bwrapCommandLine, feedBubblewrap, readOnlyOptions } from "../src/sandbox/bwrap-args.js";
import { BWRAP } from "../src/sandbox/detect.js";
import { spawnWatched } from "../src/sandbox/group-watchdog.js";
import type { ShellRunner } from "../src/sandbox/shell-runner.js";

export interface Ran {
  code: number | null;
  out: string;
}

function collect(child: ChildProcess): Promise<Ran> {
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (out += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out })));
}

/**
 * Every way the worker starts bubblewrap, each running `bash -c command`: a model's command, a
 * person's, a stdio MCP server's launcher, and the read-only view the worker's own git runs in.
 */
export const EVERY_SANDBOX = ["model", "person", "mcp", "own git"] as const;
export type SandboxUse = (typeof EVERY_SANDBOX)[number];

export async function runIn(use: SandboxUse, runner: ShellRunner, guard: FileGuard, command: string): Promise<Ran> {
  if (use === "model" || use === "person") return collect(await runner.start(command, guard, use));
  if (use === "mcp") {
    const wrapped = (await runner.wrapProcess(["bash", "-c", command], runner.workDir))!;
    return collect(spawn(wrapped.command, wrapped.args, { env: { ...process.env, ...wrapped.env }, stdio: ["ignore", "pipe", "pipe"] }));
  }
  const options = readOnlyOptions(await runner.profile(guard), emptyFileOf(runner));
  const child = spawnWatched([BWRAP, ...bwrapCommandLine(["bash", "-c", command])], { cwd: runner.workDir, stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"] });
  feedBubblewrap(child.stdio, options);
  return collect(child);
}

/** An empty file nobody may read, for the masks of the own git's view. */
function emptyFileOf(runner: ShellRunner): string {
  const file = path.join(runner.workDir, "..", "empty-mask");
  if (!fs.existsSync(file)) fs.writeFileSync(file, "", { mode: 0o000 });
  return file;
}
