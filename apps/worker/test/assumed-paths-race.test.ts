import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Guard, RunMessage } from "@gatehouse/protocol";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BUILTIN_TOOLS, FileGuard, runTool } from "../src/index.js";
import type { ToolResult } from "../src/tool.js";
import { defaultGuardRules } from "./default-guard-rules.js";

// A race between the worker's check of a call's assumed paths and the tool's open: another process
// swaps the call's path to a symlink into .git in a tight loop while the calls run, granted on the
// session's mode (which lets a write to a file the rules would ask about through).
const CALLS = 10_000;
// The folder swap is slower (a tree removed, a folder made), so its window is hit less often.
const FOLDER_CALLS = 6000;
const CONFIG = "[core]\n\tbare = false\n";

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-assumed-race-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const guard: Guard = { agent: null, static: defaultGuardRules(), runtime: [], protectedPaths: [] };

/** A work directory with a git directory the racer points links into. */
function workDir(name: string): string {
  const work = path.join(root, name);
  fs.mkdirSync(path.join(work, ".git", "hooks"), { recursive: true });
  fs.writeFileSync(path.join(work, ".git", "HEAD"), "ref: refs/heads/main\n");
  fs.writeFileSync(path.join(work, ".git", "config"), CONFIG);
  return work;
}

let racer: ChildProcess | null = null;
afterEach(() => {
  racer?.kill("SIGKILL");
  racer = null;
});

/** Starts a node process running `loop` in `work` until killed, once it has gone round once. */
async function race(work: string, loop: string): Promise<void> {
  racer = spawn(
    process.execPath,
    ["-e", `const fs = require("node:fs"); let once = false; for (;;) { try { ${loop} } catch {} if (!once) { once = true; process.stdout.write("go\\n"); } }`],
    {
      cwd: work,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise((resolve) => racer!.stdout!.once("data", resolve));
}

/** Runs the calls one after the other, each granted on the mode and assuming its path leads to itself. */
async function runAll(work: string, message: (i: number) => Pick<RunMessage, "toolName" | "args">, calls = CALLS): Promise<ToolResult[]> {
  const fileGuard = new FileGuard(guard, work);
  const results: ToolResult[] = [];
  for (let i = 0; i < calls; i++) {
    const call = message(i);
    const named = path.join(work, String((call.args as { path: string }).path));
    const run = { type: "run" as const, requestId: `r${i}`, sessionId: "s", timeoutMs: 10_000, guard, granted: "mode" as const, ...call };
    results.push(await runTool(BUILTIN_TOOLS, { ...run, assumed: { [named]: { real: named } } }, fileGuard, new AbortController().signal));
  }
  return results;
}

const movedCount = (results: ToolResult[]) => results.filter((r) => r.moved).length;

// Each name is made while the other stands, so notes.txt is a file about as long as it is a link.
const SWAP_FILE = `fs.rmSync("t1", { force: true }); fs.symlinkSync(".git/config", "t1"); fs.renameSync("t1", "notes.txt"); fs.writeFileSync("t2", "[core]\\n"); fs.renameSync("t2", "notes.txt");`;

describe("a file swapped to a symlink into .git between the worker's check and the tool's open", () => {
  const PLANT = "[core]\n\tfsmonitor = /tmp/pwn.sh\n";
  it.each([
    ["write_file", { path: "notes.txt", content: PLANT }],
    ["edit_file", { path: "notes.txt", old_string: "[core]\n", new_string: PLANT }],
  ])(
    "%s never writes through it: the call answers moved instead",
    async (toolName, args) => {
      const work = workDir(toolName);
      await race(work, SWAP_FILE);
      const results = await runAll(work, () => ({ toolName, args }));
      expect(fs.readFileSync(path.join(work, ".git", "config"), "utf8")).toBe(CONFIG);
      expect(movedCount(results)).toBeGreaterThan(0);
    },
    120_000,
  );

  it("read_file never reads what it leads to: what it returns is the file its decision assumed", async () => {
    const work = workDir("read");
    await race(work, SWAP_FILE);
    const results = await runAll(work, () => ({ toolName: "read_file", args: { path: "notes.txt" } }));
    expect(results.filter((r) => r.output.includes("bare = false"))).toEqual([]);
    expect(movedCount(results)).toBeGreaterThan(0);
    expect(results.some((r) => r.ok)).toBe(true);
  }, 120_000);

  it("a new file is never made in .git/hooks through a folder swapped to a link there", async () => {
    const work = workDir("folder");
    await race(
      work,
      `fs.rmSync("dir", { recursive: true, force: true }); fs.mkdirSync("dir"); fs.rmSync("dir", { recursive: true }); fs.symlinkSync(".git/hooks", "dir");`,
    );
    const results = await runAll(work, (i) => ({ toolName: "write_file", args: { path: `dir/new-${i}`, content: "#!/bin/sh\n" } }), FOLDER_CALLS);
    expect(fs.readdirSync(path.join(work, ".git", "hooks"))).toEqual([]);
    expect(movedCount(results)).toBeGreaterThan(0);
  }, 120_000);
});

describe("a file tool whose path leads elsewhere than its decision assumed", () => {
  it("opens nothing there: a writer waiting on a FIFO the path now leads to stays waiting", async () => {
    const work = workDir("fifo");
    const pipe = path.join(work, "pipe");
    const done = path.join(work, "writer-done");
    execFileSync("mkfifo", [pipe]);
    fs.symlinkSync("pipe", path.join(work, "x.txt"));
    const writer = spawn("sh", ["-c", `echo hi > '${pipe}' && touch '${done}'`], { stdio: "ignore" });
    try {
      const x = path.join(work, "x.txt");
      const result = await runTool(
        BUILTIN_TOOLS,
        {
          type: "run",
          requestId: "r",
          sessionId: "s",
          toolName: "read_file",
          args: { path: "x.txt" },
          timeoutMs: 10_000,
          guard,
          assumed: { [x]: { real: x } },
        },
        new FileGuard(guard, work),
        new AbortController().signal,
      );
      expect(result).toMatchObject({ ok: false, moved: { [x]: { real: pipe } } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(fs.existsSync(done)).toBe(false);
    } finally {
      writer.kill("SIGKILL");
    }
  });
});
