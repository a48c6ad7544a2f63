import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { FileGuard, resolveSandbox, ShellRunner, type ShellOrigin } from "../src/index.js";
import { defaultGuardRules } from "./default-guard-rules.js";
import { gitHost } from "./git-host.js";

await loadShellParser();

/**
 * In the sandbox, what decides what git runs is read-only in every git directory of the work
 * tree, while git's own writes (objects, refs, index, logs) still work.
 */
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-sandbox-git-")));
const work = path.join(root, "work");
const lib = path.join(root, "lib");
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const onHost = gitHost(root);
const host = (script: string, cwd = work) => onHost(script, cwd);

fs.mkdirSync(work);
fs.mkdirSync(lib);
host("git init -q . && git commit -q --allow-empty -m lib", lib);
host(
  "git init -q . && echo a > a.txt && git add a.txt && git commit -qm init && " +
    `git -c protocol.file.allow=always submodule add -q ${lib} sub && git commit -qm sub && ` +
    "git worktree add -q ../wt-linked && git config user.name a && git config user.email a@example.com",
);

const rules: Guard = {
  agent: null,
  static: [...defaultGuardRules(), { tool: "shell_exec", pattern: "*", action: "allow", origin: "person" }],
  runtime: [],
  protectedPaths: [],
};
const guard = new FileGuard(rules, work);
const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
afterAll(() => runner.close());

async function sandboxed(command: string, origin: ShellOrigin = "model"): Promise<{ code: number | null; out: string }> {
  const child = await runner.start(command, guard, origin);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, out };
}

describe("the sandbox keeps what decides what git runs read-only", () => {
  it("git add, git commit and git stash still work", async () => {
    const r = await sandboxed(
      "echo b >> a.txt && git add a.txt && git commit -qm second && echo c >> a.txt && git stash -q && git stash list && git log --oneline | wc -l",
    );
    expect(r.out).toMatch(/stash@\{0\}/);
    expect(r.code, r.out).toBe(0);
    expect(host("git log --format=%s -1")).toBe("second\n");
    expect(host("git stash list")).toMatch(/stash@\{0\}/);
  });

  const WRITES: [string, string][] = [
    ["the repository's config", "printf '[core]\\n\\tfsmonitor = ./evil\\n' >> .git/config"],
    ["a hook that exists", "echo 'rm -rf x' >> .git/hooks/pre-commit.sample"],
    ["a new hook", "printf '#!/bin/sh\\nrm -rf x\\n' > .git/hooks/pre-commit"],
    ["the hooks folder, replaced", "mv .git/hooks .git/hooks-old"],
    ["info/attributes", "echo '* filter=x' > .git/info/attributes"],
    ["a submodule's config", "echo '[core] fsmonitor = ./evil' >> .git/modules/sub/config"],
    ["a submodule's hook", "echo x > .git/modules/sub/hooks/post-checkout"],
    ["the submodule's .git file", "echo 'gitdir: ../evil' > sub/.git"],
    ["a linked worktree's commondir", "echo ../../evil > .git/worktrees/wt-linked/commondir"],
    ["the .git folder, renamed", "mv .git .git-old"],
  ];
  it.each(WRITES)("a write to %s fails", async (_what, command) => {
    const before = host("git status --porcelain; cat .git/config; ls -a .git .git/hooks .git/info; cat sub/.git");
    const r = await sandboxed(command);
    expect(r.code, r.out).not.toBe(0);
    expect(host("git status --porcelain; cat .git/config; ls -a .git .git/hooks .git/info; cat sub/.git")).toBe(before);
  });

  // A bind needs its path to exist, and an empty commondir would stop git: these are removed instead.
  const MADE: [string, string, string][] = [
    ["commondir", "echo ../evil > .git/commondir", ".git/commondir"],
    ["config.worktree", "printf '[core]\\n\\tfsmonitor = ./evil\\n' > .git/config.worktree", ".git/config.worktree"],
    ["commondir in a submodule's git directory", "echo ../../evil > .git/modules/sub/commondir", ".git/modules/sub/commondir"],
  ];
  it.each(MADE)("a new %s does not outlive the command that made it", async (_what, command, made) => {
    const r = await sandboxed(`${command} && test -f ${made} && echo made`);
    expect(r.out, r.out).toContain("made");
    expect(fs.existsSync(path.join(work, made))).toBe(false);
    expect(() => host("git status --porcelain")).not.toThrow();
  });

  it("files the work tree keeps outside .git stay writable", async () => {
    const r = await sandboxed("echo d >> a.txt && mkdir -p src && echo x > src/new.ts");
    expect(r.code, r.out).toBe(0);
    expect(fs.readFileSync(path.join(work, "src", "new.ts"), "utf8")).toBe("x\n");
  });
});

/** A folder made a git directory by plain files: HEAD, a config, objects/ and refs/. */
const PLANTED = {
  HEAD: "ref: refs/heads/main\n",
  config: '[core]\n\trepositoryformatversion = 0\n\tworktree = .\n\tfsmonitor = "id > pwned.txt; true"\n',
  "objects/info/keep": "",
  "refs/heads/keep": "",
};

function plant(dir: string): void {
  for (const [name, text] of Object.entries(PLANTED)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

describe("a folder made a git directory by writing its files is not used by git in the sandbox", () => {
  const ORIGINS: ShellOrigin[] = ["model", "person"];
  it.each(ORIGINS)("git status by the %s does not run the planted fsmonitor, at the top or in a folder below", async (origin) => {
    const planted = path.join(work, `planted-${origin}`);
    plant(planted);
    fs.mkdirSync(path.join(planted, "below"));
    const r = await sandboxed(`cd planted-${origin} && git status; cd below && git status; git diff`, origin);
    expect(r.out).toContain("cannot use bare repository");
    expect(fs.existsSync(path.join(planted, "pwned.txt"))).toBe(false);
    expect(fs.existsSync(path.join(planted, "below", "pwned.txt"))).toBe(false);
    // The same folder named on purpose is still a repository.
    expect((await sandboxed(`git --git-dir=planted-${origin} rev-parse --git-dir`, origin)).out).toBe(`planted-${origin}\n`);
  });

  it("the worker's own check refuses a write into a folder that has a HEAD, and not a plain config", () => {
    plant(path.join(work, "planted-check"));
    expect(() => guard.check("write_file", "planted-check/config")).toThrow(
      /is part of the git directory .*planted-check, whose config decides what `git status`/,
    );
    expect(() => guard.check("write_file", "planted-check/refs/heads/x")).toThrow(/git directory/);
    expect(guard.check("write_file", "config/app.yml")).toBe(path.join(work, "config", "app.yml"));
  });

  it("a repository with .git, its submodule and a linked worktree inside the work directory still work", async () => {
    host("git worktree add -q inner-wt");
    const r = await sandboxed(
      "git status --porcelain >/dev/null && git -C sub status --porcelain && git -C inner-wt status --porcelain && git -C inner-wt log --oneline | wc -l",
    );
    expect(r.code, r.out).toBe(0);
    host("git worktree remove --force inner-wt");
  });
});
