// shell_exec run for real, outside the sandbox: bash in a process group of its own, its output
// and exit code, and what its timeout ends.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import { toolOutputText, type Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { waitUntil } from "../../../test/support/wait.js";
import { processGone } from "../../../test/support/process.js";
import { BUILTIN_TOOLS, FileGuard, runTool } from "../src/index.js";
import { defaultGuardRules } from "./default-guard-rules.js";

await loadShellParser();
const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-shell-exec-")));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const guard: Guard = { agent: null, static: defaultGuardRules(), runtime: [], protectedPaths: [] };

/** A command the default rules ask about, run as the server runs it once a person approved it. */
function approvedShell(command: string, timeoutMs = 10_000) {
  const message = { type: "run", requestId: "r", sessionId: "s", toolName: "shell_exec", args: { command }, timeoutMs, guard, granted: "person" } as const;
  return runTool(BUILTIN_TOOLS, message, new FileGuard(guard, work), new AbortController().signal);
}

describe("shell_exec", () => {
  it("returns output and exit code", async () => {
    const result = await approvedShell("echo out; echo err >&2; exit 3");
    expect(result).toEqual({ ok: false, output: "out\n", stderr: "err\n", exitCode: 3 });
    expect(toolOutputText(result)).toBe("out\n\n--- stderr ---\nerr\n\nexit code: 3");
  });

  it("kills the process group when the timeout passes", async () => {
    const r = await approvedShell("sleep 20 & echo $! > bg.pid; wait", 2000);
    expect(r).toEqual({ ok: false, output: "shell_exec timed out after 2000 ms", timedOut: true });
    const pid = Number(fs.readFileSync(path.join(work, "bg.pid"), "utf8"));
    expect(pid).toBeGreaterThan(1);
    await waitUntil(() => processGone(pid), 3000, "the background sleep to be gone");
  });
});
