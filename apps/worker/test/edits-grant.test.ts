import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import type { Granted, Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_TOOLS, FileGuard, runTool } from "../src/index.js";
import { defaultGuardRules } from "./default-guard-rules.js";

await loadShellParser();

/**
 * Accept-edits lets the server run a write it was asked about, but never an exec-tier one. The
 * server decides on names; the worker sees that `gd` is a git directory by what it holds (a
 * `git init --separate-git-dir=gd sub` made it), so only the worker can tell that gd/config steers git.
 */
const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-edits-grant-")));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
fs.mkdirSync(path.join(work, "gd", "objects"), { recursive: true });
fs.mkdirSync(path.join(work, "gd", "refs"));
fs.mkdirSync(path.join(work, "gd", "hooks"));
fs.writeFileSync(path.join(work, "gd", "HEAD"), "ref: refs/heads/main\n");
fs.writeFileSync(path.join(work, "gd", "config"), "[core]\n\trepositoryformatversion = 0\n");
fs.writeFileSync(path.join(work, "notes.txt"), "notes\n");

const writesAsk = [{ tool: "write_file", pattern: "*", action: "ask" as const, origin: "person" as const }];
const guard: Guard = { agent: null, static: [...defaultGuardRules(), ...writesAsk], runtime: [], protectedPaths: [] };

function write(file: string, granted: Granted) {
  const args = { path: file, content: "[core]\n\tfsmonitor = /tmp/evil.sh\n" };
  const msg = { type: "run" as const, requestId: "r", sessionId: "s", toolName: "write_file", args, timeoutMs: 10_000, guard, granted };
  return runTool(BUILTIN_TOOLS, msg, new FileGuard(guard, work), new AbortController().signal);
}

describe("a write granted by accept-edits", () => {
  it("to a git directory's config, known by what the folder holds, is refused, naming it", async () => {
    const refused = await write("gd/config", "edits");
    expect(refused).toMatchObject({ ok: false, output: expect.stringMatching(/refused write_file gd\/config: .*git/) });
    expect(fs.readFileSync(path.join(work, "gd", "config"), "utf8")).not.toContain("fsmonitor");
    expect((await write("gd/hooks/post-checkout", "edits")).ok).toBe(false);
    expect(fs.existsSync(path.join(work, "gd", "hooks", "post-checkout"))).toBe(false);
  });

  it("to a plain file runs, and yolo or a person's approval lets the git directory's config through", async () => {
    expect((await write("notes.txt", "edits")).ok).toBe(true);
    expect((await write("gd/config", "mode")).ok).toBe(true);
    expect((await write("gd/config", "person")).ok).toBe(true);
  });
});
