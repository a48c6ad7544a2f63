import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser, parseRulesOrThrow } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { GuardCache } from "../src/guard-cache.js";
import { resolveSandbox, ShellRunner } from "../src/index.js";
import { gitHost } from "./git-host.js";

await loadShellParser();

/**
 * A `.env` committed once is in git's objects, where the sandbox's mask of the working file does
 * not reach: the commands that print what git holds are refused while the rules deny reading it.
 */
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-git-history-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const SECRET = "API_KEY=history-secret";

const host = gitHost(root);

function repo(name: string, script: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  host(`git init -q . && echo 'x' > app.ts && git add app.ts && git commit -qm init && ${script}`, dir);
  return dir;
}

const RULES = `{ "*": "ask", "read_file": { "*": "allow", ".env": "deny", "*.env": "deny" }, "shell_exec": { "*": "ask", "git *": "allow" } }`;
const rules: Guard = {
  agent: null,
  static: parseRulesOrThrow(RULES, { file: "p", home: root }).map(({ tool, pattern, action, origin }) => ({ tool, pattern, action, origin })),
  runtime: [],
  protectedPaths: [],
};

async function run(work: string, command: string): Promise<string> {
  const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
  try {
    const child = await runner.spawn(command, new GuardCache(work).get(rules));
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d));
    await new Promise((r) => child.on("close", r));
    return out;
  } finally {
    runner.close();
  }
}

describe("a file the rules deny to read, held in git's history", () => {
  const leaked = repo("leaked", `echo '${SECRET}' > .env && git add .env && git commit -qm oops && git rm -q .env && git commit -qm gone`);

  it.each(["git log -p", "git show HEAD~1", "git diff HEAD~2", "git -C . log --patch --all", "git stash show -p"])(
    "%j is refused, naming the file",
    async (command) => {
      await expect(run(leaked, command)).rejects.toThrow(/prints files from git's history and index, which hold .*\/\.env, denied to read_file/);
    },
  );

  it.each(["git log -L1,1:.env HEAD~1", "git reflog -p", "git log -g -p"])("%j is refused, naming the file", async (command) => {
    await expect(run(leaked, command)).rejects.toThrow(/prints files from git's history and index, which hold .*\/\.env, denied to read_file/);
  });

  it("a person's approval does not let the worker run it: the call is refused, not asked", async () => {
    const guard = new GuardCache(leaked).get(rules);
    await expect(guard.checkShell("git log -L1,1:.env HEAD~1", "person")).rejects.toThrow(/\.env, denied to read_file/);
    await expect(guard.checkShell("git log --oneline", "person")).resolves.toBeUndefined();
  });

  it("a .env only in the reflog, its commit reset away, is seen by git reflog -p", async () => {
    const reset = repo("reset", `echo '${SECRET}' > .env && git add .env && git commit -qm oops && git reset -q --hard HEAD~1`);
    await expect(run(reset, "git reflog -p")).rejects.toThrow(/\.env, denied to read_file/);
  });

  it("a .env that entered and left the tree only in merge commits is seen by git log -p -m", async () => {
    const side = (name: string) => `git checkout -q side && echo ${name} > ${name}.txt && git add ${name}.txt && git commit -qm ${name} && git checkout -q -`;
    const merged = repo(
      "merged",
      [
        "git branch side",
        side("s1"),
        `git merge -q --no-ff --no-commit side && echo '${SECRET}' > .env && git add -f .env && git commit -qm m1`,
        side("s2"),
        "git merge -q --no-ff --no-commit side && git rm -q --cached .env && rm .env && git commit -qm m2",
      ].join(" && "),
    );
    await expect(run(merged, "git log -p -m --first-parent -3")).rejects.toThrow(/\.env, denied to read_file/);
  });

  it("a .env in a commit no ref or reflog reaches, its objects not pruned, is seen by git log -p <id>", async () => {
    const lost = repo(
      "lost",
      `echo '${SECRET}' > .env && git add -f .env && git commit -qm oops && git rev-parse HEAD > .git/lost && git reset -q --hard HEAD~1 && git reflog expire --expire=now --all`,
    );
    const id = fs.readFileSync(path.join(lost, ".git/lost"), "utf8").trim();
    await expect(run(lost, `git log -p ${id} -1`)).rejects.toThrow(/\.env, denied to read_file/);
  });

  it("a blob no tree names (a .env staged, then unstaged) is not printed by its id or with every object; git log -p still runs", async () => {
    const unstaged = repo("unstaged", `echo '${SECRET}' > .env && git add -f .env && git rm -q --cached .env && git hash-object .env > .git/blob`);
    const id = fs.readFileSync(path.join(unstaged, ".git/blob"), "utf8").trim();
    for (const command of [`git cat-file -p ${id.slice(0, 8)}`, `git show ${id}`, "git cat-file --batch-all-objects --batch"])
      await expect(run(unstaged, command)).rejects.toThrow(/a blob no tree names/);
    expect(await run(unstaged, "git log -p")).toContain("+x");
    expect(await run(unstaged, "git show HEAD")).toContain("+x");
  });

  it("git log -p runs where commits reset away hold no denied file", async () => {
    const reset = repo("reset-clean", "echo z >> app.ts && git commit -qam z && git reset -q --hard HEAD~1 && git reflog expire --expire=now --all");
    expect(await run(reset, "git log -p")).toContain("+x");
  });

  it("a tree naming .env that came into the object store with no ref changed is seen by git show <tree>", async () => {
    const dangling = repo("dangling", "true");
    const cache = new GuardCache(dangling);
    await expect(cache.get(rules).checkShell("git log -p")).resolves.toBeUndefined();
    host(`printf '100644 blob %s\\t.env\\n' $(echo '${SECRET}' | git hash-object -w --stdin) | git mktree > .git/tree`, dangling);
    const tree = fs.readFileSync(path.join(dangling, ".git/tree"), "utf8").trim();
    await expect(cache.get(rules).checkShell(`git show ${tree}`)).rejects.toThrow(/\.env, denied to read_file/);
  });

  it.each(["git log --oneline", "git show --stat HEAD~1", "git status"])("%j still runs", async (command) => {
    expect(await run(leaked, command)).not.toContain("history-secret");
  });

  it("git log -p runs where no denied file was ever committed", async () => {
    const clean = repo("clean", "echo y >> app.ts && git commit -qam second");
    expect(await run(clean, "git log -p")).toContain("+y");
  });

  it("a .env committed after the guard was made is seen", async () => {
    const later = repo("later", "true");
    const cache = new GuardCache(later);
    await expect(cache.get(rules).checkShell("git log -p")).resolves.toBeUndefined();
    host(`echo '${SECRET}' > .env && git add .env && git commit -qm oops`, later);
    await expect(cache.get(rules).checkShell("git log -p")).rejects.toThrow(/\.env, denied to read_file/);
  });
});

describe("git commands that print names or counts beside what may print a file", () => {
  const held = repo("held", `echo '${SECRET}' > .env && git add .env && git commit -qm env`);
  const blob = host("git rev-parse HEAD:.env", held).trim();

  it("git itself prints the committed .env for each of these: the attacks are real", () => {
    const scratch = repo("scratch", `echo '${SECRET}' > .env && git add .env && git commit -qm env`);
    const id = host("git rev-parse HEAD:.env", scratch).trim();
    host(`git tag blob ${id}`, scratch);
    expect(host("git show --stat -p HEAD", scratch)).toContain(SECRET);
    expect(host(`git show -s ${id}`, scratch)).toContain(SECRET);
    expect(host("git show -s blob", scratch)).toContain(SECRET);
    expect(host(`git notes add -C ${id} HEAD && git log -1`, scratch)).toContain(SECRET);
    expect(host("git notes remove HEAD 2>/dev/null; git symbolic-ref HEAD refs/tags/blob && git show -s", scratch)).toContain(SECRET);
  });

  it.each([
    "git show --stat -p HEAD",
    `git show -s ${blob}`,
    `git show --name-only ${blob.slice(0, 10)}`,
    "git show --stat HEAD:.env",
    `git notes add -C ${blob} HEAD`,
    "git symbolic-ref HEAD refs/tags/blob",
    "git diff --stat --check HEAD~1",
  ])("%j is refused, naming the file", async (command) => {
    await expect(run(held, command)).rejects.toThrow(/git's history and index, which hold .*\/\.env, denied to read_file/);
  });

  it("the blob is not given a new name in the index, to be checked out and read under it", async () => {
    const copied = repo("copied", `echo '${SECRET}' > .env && git add .env && git commit -qm env`);
    const id = host("git rev-parse HEAD:.env", copied).trim();
    expect(
      host(`git update-index --add --cacheinfo 100644,${id},a.txt && git checkout -- a.txt && cat a.txt && git rm -q --cached a.txt && rm a.txt`, copied),
    ).toContain(SECRET);
    await expect(run(copied, `git update-index --add --cacheinfo 100644,${id},notes.txt && git checkout -- notes.txt`)).rejects.toThrow(
      /gives a new name to an object of git's history and index, which hold .*\/\.env, denied to read_file/,
    );
    expect(fs.existsSync(path.join(copied, "notes.txt"))).toBe(false);
  });

  it("the blob is not made to replace HEAD's commit, which git show -s would then print", async () => {
    const replaced = repo("replaced", `echo '${SECRET}' > .env && git add .env && git commit -qm env`);
    const [id, head] = host("git rev-parse HEAD:.env HEAD", replaced).trim().split("\n");
    expect(host(`git fetch -q . ${id}:refs/replace/${head} && git show -s HEAD && git replace -d ${head} >/dev/null`, replaced)).toContain(SECRET);
    await expect(run(replaced, `git fetch -q . ${id}:refs/replace/${head}`)).rejects.toThrow(/which hold .*\/\.env, denied to read_file/);
    expect(host("git for-each-ref refs/replace", replaced)).toBe("");
  });

  it("a tag that names the blob is not shown whatever the options", async () => {
    host(`git tag blob ${blob}`, held);
    await expect(run(held, "git show -s blob")).rejects.toThrow(/\.env, denied to read_file/);
  });

  it("git grep of the working tree's paths runs; of a revision it is refused", async () => {
    expect(await run(held, "git grep -n -e x -- app.ts")).toBe("app.ts:1:x\n");
    await expect(run(held, "git grep -e API_KEY HEAD")).rejects.toThrow(/\.env, denied to read_file/);
  });

  it("git blame of one named file prints that file; of .env it is refused", async () => {
    const out = await run(held, "git blame -L 1,1 HEAD -- app.ts");
    expect(out).toMatch(/^\^?[0-9a-f]+ .*\) x$/m);
    expect(out).not.toContain("history-secret");
    await expect(run(held, "git blame HEAD -- .env")).rejects.toThrow(/\.env/);
  });

  it.each([
    "git diff --stat HEAD~1 HEAD",
    "git diff --name-only HEAD~1 HEAD",
    "git diff --numstat --cached",
    "git show --stat",
    "git show -s --oneline HEAD~1",
  ])("%j runs and prints no file's lines", async (command) => {
    const out = await run(held, command);
    expect(out).not.toContain("history-secret");
    if (command.includes("HEAD~1") && command.startsWith("git diff")) expect(out).toContain(".env");
  });
});
