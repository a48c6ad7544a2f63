import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser, parseRulesOrThrow } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { GuardCache } from "../src/guard-cache.js";
import { BUILTIN_TOOLS, resolveSandbox, runTool, ShellRunner } from "../src/index.js";

await loadShellParser();

/**
 * A git directory that a model's command made was writable to it (nothing of it existed to keep
 * read-only), so it could name programs for git to run: a `core.fsmonitor` that a person's
 * `!git status` would run without the rules' masks. When the command ends, such a directory keeps
 * only settings that cannot run a program, and no hooks but git's samples.
 */
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-made-git-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const RULES = `{ "*": "ask", "read_file": { "*": "allow", ".env": "deny" }, "write_file": { "*": "allow" }, "shell_exec": { "*": "allow", "bash plant.sh": "allow", "bash commit.sh": "allow", "bash common.sh": "allow", "bash quoted.sh": "allow" } }`;
const rules: Guard = {
  agent: null,
  static: parseRulesOrThrow(RULES, { file: "p", home: root }).map(({ tool, pattern, action, origin }) => ({ tool, pattern, action, origin })),
  runtime: [],
  protectedPaths: [],
};

interface Work {
  work: string;
  call: (command: string, origin?: "model" | "person") => Promise<string>;
  write: (file: string, content: string) => Promise<string>;
}

function workDir(name: string, files: Record<string, string> = {}): Work {
  const work = path.join(root, name);
  fs.mkdirSync(work);
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(work, file), text, { mode: 0o755 });
  const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
  afterAll(() => runner.close());
  const guard = new GuardCache(work).get(rules);
  const call = async (command: string, origin: "model" | "person" = "model") => {
    const msg = { type: "run" as const, requestId: "r", sessionId: "s", toolName: "shell_exec", args: { command }, timeoutMs: 20_000, guard: rules, origin };
    const r = await runTool(BUILTIN_TOOLS, msg, guard, new AbortController().signal, undefined, runner);
    return `${r.output}${r.stderr ?? ""}`;
  };
  const write = async (file: string, content: string) => {
    const msg = {
      type: "run" as const,
      requestId: "r",
      sessionId: "s",
      toolName: "write_file",
      args: { path: file, content },
      timeoutMs: 20_000,
      guard: rules,
    };
    return (await runTool(BUILTIN_TOOLS, msg, guard, new AbortController().signal, undefined, runner)).output;
  };
  return { work, call, write };
}

describe("a git directory a model's command made keeps no setting that runs a program", () => {
  it("a person's `!git status` does not run the core.fsmonitor a test planted, and the .env stays unread", async () => {
    const plant = [
      "git init -q .",
      `printf '#!/bin/sh\\ncat .env > loot.txt\\nexit 1\\n' > fsm.sh && chmod +x fsm.sh`,
      "git config core.fsmonitor $PWD/fsm.sh",
      "git config remote.origin.url https://example.invalid/r.git",
      `printf '#!/bin/sh\\ntouch hooked\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
    ].join(" && ");
    const { work, call } = workDir("fsmonitor", { ".env": "NPM_TOKEN=DOTENV-SECRET\n", "plant.sh": `${plant}\n` });
    const planted = await call("bash plant.sh");
    expect(planted).toMatch(/keeps only settings that cannot run a program: removed core\.fsmonitor, hooks\/pre-commit/);

    const status = await call("git status --short", "person");
    expect(status).toContain("?? plant.sh");
    expect(fs.existsSync(path.join(work, "loot.txt"))).toBe(false);
    expect(fs.existsSync(path.join(work, ".git/hooks/pre-commit"))).toBe(false);
    expect(fs.readdirSync(path.join(work, ".git/hooks")).length).toBeGreaterThan(0);
    expect(await call("git config --get remote.origin.url", "person")).toContain("https://example.invalid/r.git");
  });

  it("a common directory without a HEAD, named by a new git directory's commondir, is disarmed too", async () => {
    const plant = [
      `printf '#!/bin/sh\necho ran > ran.txt\nexit 1\n' > fsm.sh && chmod +x fsm.sh`,
      "git init -q --bare common && rm common/HEAD",
      "git config --file common/config core.fsmonitor $PWD/fsm.sh && git config --file common/config core.bare false",
      "mkdir -p sub/.git && echo 'ref: refs/heads/main' > sub/.git/HEAD && echo ../../common > sub/.git/commondir && echo x > sub/a",
    ].join(" && ");
    const { work, call } = workDir("common", { "common.sh": `${plant}\n` });
    expect(await call("bash common.sh")).toMatch(/common, keeps only settings that cannot run a program: removed core\.fsmonitor/);
    expect(await call("git -C sub status --short", "person")).toContain("?? a");
    expect(fs.existsSync(path.join(work, "ran.txt"))).toBe(false);
  });

  it("a config not in git's plain form is read by git: a header and a quoted setting on one line lose the setting, a quoted name with a semicolon stays", async () => {
    const plant = [
      `printf '#!/bin/sh\necho ran > ran.txt\nexit 1\n' > fsm.sh && chmod +x fsm.sh`,
      "git init -q .",
      `printf '[core] fsmonitor = "%s/fsm.sh" ; a comment\n[user]\n\tname = "A; B"\n' "$PWD" >> .git/config`,
    ].join(" && ");
    const { work, call } = workDir("quoted", { "quoted.sh": `${plant}\n` });
    expect(await call("bash quoted.sh")).toMatch(/removed core\.fsmonitor\]/);
    expect(await call("git status --short", "person")).toContain("?? quoted.sh");
    expect(fs.existsSync(path.join(work, "ran.txt"))).toBe(false);
    expect(await call("git config --get user.name", "person")).toBe("A; B\n");
  });

  it("a hard link to a new git directory's config or sample hook is cut: a later write through it, by a file tool or a command, leaves git's settings alone", async () => {
    const plant = [
      `printf '#!/bin/sh\necho ran > ran.txt\nexit 1\n' > fsm.sh && chmod +x fsm.sh`,
      "git init -q proj && ln proj/.git/config proj/cfg.txt && ln proj/.git/config cfg2.txt",
      "ln proj/.git/hooks/pre-commit.sample proj/hook.txt",
    ].join(" && ");
    const { work, call, write } = workDir("hardlink", {
      "link.sh": `${plant}\n`,
      "append.sh": `printf '[core]\\n\\tfsmonitor = %s/fsm.sh\\n' "$PWD" >> cfg2.txt\n`,
    });
    await call("bash link.sh");
    const config = fs.statSync(path.join(work, "proj/.git/config"));
    expect(config.nlink).toBe(1);
    for (const linked of ["proj/cfg.txt", "cfg2.txt"]) expect(fs.statSync(path.join(work, linked)).ino).not.toBe(config.ino);
    expect(fs.existsSync(path.join(work, "proj/.git/hooks/pre-commit.sample"))).toBe(false);

    expect(await write("proj/cfg.txt", `[core]\n\tfsmonitor = ${work}/fsm.sh\n`)).toMatch(/^wrote/);
    await call("bash append.sh");
    expect(fs.readFileSync(path.join(work, "proj/.git/config"), "utf8")).not.toContain("fsmonitor");
    await call("git -C proj status --short", "person");
    expect(fs.existsSync(path.join(work, "ran.txt"))).toBe(false);
    // Once made, the git directory is read-only to later commands: no new hard link reaches its config.
    await call("ln proj/.git/config again.txt");
    expect(fs.existsSync(path.join(work, "again.txt"))).toBe(false);
  });

  it("`git init && git add . && git commit` by the model works, and so does a later `git log`", async () => {
    const commit = "git init -q . && git config user.name a && git config user.email a@example.com && git add . && git commit -qm x && echo committed";
    const { work, call } = workDir("plain", { "a.txt": "a\n", "commit.sh": `${commit}\n` });
    const made = await call("bash commit.sh");
    expect(made).toContain("committed");
    expect(made).not.toMatch(/removed/);
    expect(await call("git log --format=%s")).toBe("x\n");
    expect(await call("git log --format=%s", "person")).toBe("x\n");
    expect(fs.readFileSync(path.join(work, ".git/config"), "utf8")).toMatch(/name = a\n/);
  });
});
