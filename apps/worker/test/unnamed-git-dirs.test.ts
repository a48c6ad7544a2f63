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
 * A git directory is known by what it holds, not by the name `.git`: one made with
 * `--separate-git-dir` keeps its settings read-only for later commands like any `.git`, and a
 * `.git` file a command made that names a git directory the sandbox cannot see (past the deepest
 * folder it walks, through a symlink) is removed when the command ends.
 */
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-unnamed-git-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const RULES = `{ "*": "ask", "read_file": { "*": "allow", ".env": "deny" }, "write_file": { "*": "allow" }, "shell_exec": { "*": "allow", "bash plant.sh": "allow", "bash arm.sh": "allow" } }`;
const rules: Guard = {
  agent: null,
  static: parseRulesOrThrow(RULES, { file: "p", home: root }).map(({ tool, pattern, action, origin }) => ({ tool, pattern, action, origin })),
  runtime: [],
  protectedPaths: [],
};

const FSM = `printf '#!/bin/sh\\ncat .env > loot.txt\\nexit 1\\n' > fsm.sh && chmod +x fsm.sh`;
const DEEP = `deep/${Array.from({ length: 70 }, () => "d").join("/")}`;

function workDir(name: string, files: Record<string, string>) {
  const work = path.join(root, name);
  fs.mkdirSync(work);
  fs.writeFileSync(path.join(work, ".env"), "API_KEY=DOTENV-SECRET\n");
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(work, file), text, { mode: 0o755 });
  const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
  afterAll(() => runner.close());
  const guard = new GuardCache(work).get(rules);
  const run = async (toolName: string, args: Record<string, unknown>, origin: "model" | "person" = "model") => {
    const msg = { type: "run" as const, requestId: "r", sessionId: "s", toolName, args, timeoutMs: 20_000, guard: rules, origin };
    const r = await runTool(BUILTIN_TOOLS, msg, guard, new AbortController().signal, undefined, runner);
    return `${r.output}${r.stderr ?? ""}`;
  };
  const call = (command: string, origin: "model" | "person" = "model") => run("shell_exec", { command }, origin);
  return { work, call, run };
}

describe("a git directory not named .git", () => {
  it("made by one command, keeps its config and hooks read-only to the next", async () => {
    const arm = [`echo '\tfsmonitor = '$PWD/fsm.sh >> gd/config`, "echo x > gd/hooks/post-checkout", "echo x > gd/config.worktree", "true"].join("; ");
    const { work, call } = workDir("separate", { "plant.sh": `${FSM} && git init -q --separate-git-dir=gd sub\n`, "arm.sh": `${arm}\n` });
    await call("bash plant.sh");
    expect(fs.readFileSync(path.join(work, "sub/.git"), "utf8")).toContain(`gitdir: ${work}/gd`);
    const config = fs.readFileSync(path.join(work, "gd/config"), "utf8");
    await call("bash arm.sh");
    expect(fs.readFileSync(path.join(work, "gd/config"), "utf8")).toBe(config);
    expect(fs.existsSync(path.join(work, "gd/hooks/post-checkout"))).toBe(false);
    expect(fs.existsSync(path.join(work, "gd/config.worktree"))).toBe(false);
    await call("git -C sub status --short", "person");
    expect(fs.existsSync(path.join(work, "loot.txt"))).toBe(false);
  });
});

describe("a .git file a command made that names a git directory the sandbox cannot see", () => {
  it("past the deepest folder walked, is removed, and a person's `!git status` runs nothing", async () => {
    const plant = [FSM, `mkdir -p ${DEEP}`, `git init -q --separate-git-dir=${DEEP}/g sub`, `echo '\tfsmonitor = '$PWD/fsm.sh >> ${DEEP}/g/config`].join(
      " && ",
    );
    const { work, call } = workDir("deep", { "plant.sh": `${plant}\n` });
    expect(await call("bash plant.sh")).toMatch(/made .*\/sub\/\.git, which names a git directory the sandbox cannot keep read-only or disarm .*removed/);
    expect(fs.existsSync(path.join(work, "sub/.git"))).toBe(false);
    expect(fs.readFileSync(path.join(work, DEEP, "g/config"), "utf8")).toContain("fsmonitor");
    await call("cd sub && git status --short", "person");
    expect(fs.existsSync(path.join(work, "loot.txt"))).toBe(false);
  });

  it("through a symlink to a deep git directory, is removed; one naming a git directory in view stays", async () => {
    const plant = [
      FSM,
      `mkdir -p ${DEEP} && git init -q --bare ${DEEP}/g && ln -s ${DEEP}/g glink`,
      `echo '\tfsmonitor = '$PWD/fsm.sh >> ${DEEP}/g/config`,
      "mkdir via && echo 'gitdir: ../glink' > via/.git",
      "git init -q --separate-git-dir=shallow plain",
    ].join(" && ");
    const { work, call } = workDir("link", { "plant.sh": `${plant}\n` });
    const said = await call("bash plant.sh");
    expect(said).toMatch(/made .*\/via\/\.git, which names a git directory/);
    expect(said).not.toMatch(/plain\/\.git/);
    expect(fs.existsSync(path.join(work, "via/.git"))).toBe(false);
    expect(fs.existsSync(path.join(work, "plain/.git"))).toBe(true);
    await call("cd via && git status --short", "person");
    expect(fs.existsSync(path.join(work, "loot.txt"))).toBe(false);
  });
});

describe("file tools and folders too deep to walk", () => {
  it("read_file and write_file refuse a path the sandbox hides as too deep, naming the limit", async () => {
    const { work, run } = workDir("files", {});
    fs.mkdirSync(path.join(work, DEEP), { recursive: true });
    fs.writeFileSync(path.join(work, DEEP, "note.txt"), "deep note\n");
    expect(await run("read_file", { path: `${DEEP}/note.txt` })).toMatch(/past the deepest folder the sandbox walks \(64 levels/);
    expect(await run("write_file", { path: `${DEEP}/new.txt`, content: "x" })).toMatch(/past the deepest folder the sandbox walks/);
    expect(fs.existsSync(path.join(work, DEEP, "new.txt"))).toBe(false);
    expect(await run("read_file", { path: "deep/d/d/shallow.txt" })).not.toMatch(/deepest folder/);
  });
});
