import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import { silentLog, type Log } from "@gatehouse/log";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { FileGuard, resolveSandbox, ShellRunner } from "../src/index.js";
import type { GitRunner } from "../src/own-git.js";
import { disarmGitDirs } from "../src/sandbox/made-git-dirs.js";
import { defaultGuardRules } from "./default-guard-rules.js";
import { gitHost } from "./git-host.js";

await loadShellParser();

/**
 * The worker removes the parts of git directories a command made that were absent at its start.
 * A command that puts a symlink in place of such a git directory, or of a folder above it, must
 * not make the worker remove anything where the symlink leads.
 */
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-git-removal-")));
const work = path.join(root, "work");
// Named as the git directory it replaces, so that a symlink to its folder leads there too.
const victim = path.join(root, "x");
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

fs.mkdirSync(work);
gitHost(root)("git init -q . && git commit -q --allow-empty -m init", work);

const VICTIM_FILES = ["config", "config.worktree", "commondir", "gitdir", "hooks/a", "info/b", "keep.txt"];
function plantVictim(): void {
  fs.rmSync(victim, { recursive: true, force: true });
  for (const f of VICTIM_FILES) {
    fs.mkdirSync(path.dirname(path.join(victim, f)), { recursive: true });
    fs.writeFileSync(path.join(victim, f), f);
  }
}
const victimLeft = () => VICTIM_FILES.filter((f) => fs.existsSync(path.join(victim, f)));

const rules: Guard = { agent: null, static: defaultGuardRules(), runtime: [], protectedPaths: [] };
const guard = new FileGuard(rules, work);
const errors: string[] = [];
const log: Log = { ...silentLog, error: (m: string) => void errors.push(m) };
const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false, log });
afterAll(() => runner.close());

async function sandboxed(command: string): Promise<{ code: number | null; out: string }> {
  const child = await runner.start(command, guard, "model");
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, out };
}

/** A submodule's git directory made of plain files: its config, hooks and info are absent, to be removed if made. */
const MAKE_GIT_DIR = "rm -rf .git/modules && mkdir -p .git/modules/x/objects && echo 'ref: refs/heads/main' > .git/modules/x/HEAD";

describe("the removal of what a command made in a git directory stays in the git directory", () => {
  const SWAPS: [string, string][] = [
    ["the git directory", `rm -rf .git/modules/x && ln -s ${victim} .git/modules/x`],
    ["a folder above it", `rm -rf .git/modules && ln -s ${root} .git/modules`],
  ];
  it.each(SWAPS)("a symlink to a host folder in place of %s leaves that folder whole", async (_what, swap) => {
    plantVictim();
    expect((await sandboxed(MAKE_GIT_DIR)).code).toBe(0);
    const profile = await runner.profile(guard);
    expect(profile.gitUnmade).toContain(path.join(work, ".git/modules/x/config"));
    errors.length = 0;
    const r = await sandboxed(swap);
    expect(r.code, r.out).toBe(0);
    expect(victimLeft()).toEqual(VICTIM_FILES);
    expect(errors.join("\n")).toContain("is a symlink or not a folder now");
  });

  it("a made hooks folder is removed, and a symlink inside it is removed without following it", async () => {
    plantVictim();
    expect((await sandboxed(MAKE_GIT_DIR)).code).toBe(0);
    await runner.profile(guard);
    const r = await sandboxed(
      `mkdir -p .git/modules/x/hooks/deep/er && echo x > .git/modules/x/hooks/pre-commit && ln -s ${victim} .git/modules/x/hooks/deep/er/v && ln -s ${victim}/config .git/modules/x/config`,
    );
    expect(r.code, r.out).toBe(0);
    expect(fs.existsSync(path.join(work, ".git/modules/x/hooks"))).toBe(false);
    expect(fs.lstatSync(path.join(work, ".git/modules/x/config"), { throwIfNoEntry: false })).toBeUndefined();
    expect(fs.existsSync(path.join(work, ".git/modules/x/HEAD"))).toBe(true);
    expect(victimLeft()).toEqual(VICTIM_FILES);
  });
});

describe("the disarming of a git directory a command made stays in it", () => {
  it("a made git directory swapped for a symlink after it was listed (by a process still running) leaves where the link leads whole", async () => {
    plantVictim();
    fs.writeFileSync(path.join(victim, "config"), "[core]\n\tfsmonitor = keep-me\n");
    const made = path.join(work, "made", ".git");
    fs.mkdirSync(path.dirname(made), { recursive: true });
    fs.symlinkSync(victim, made);
    const noGit: GitRunner = () => Promise.resolve({ status: null, stdout: "", stderr: "not run" });
    const [disarmed] = await disarmGitDirs([made], noGit, work);
    expect(disarmed!.refused).toContain("is a symlink or not a folder now");
    expect(victimLeft()).toEqual(VICTIM_FILES);
    expect(fs.readFileSync(path.join(victim, "config"), "utf8")).toContain("keep-me");
    fs.rmSync(path.dirname(made), { recursive: true });
  });
});
