import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser, parseRulesOrThrow } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { FileGuard } from "../src/file-guard.js";
import { GitHistory } from "../src/git-history.js";
import { GuardCache } from "../src/guard-cache.js";
import { resolveSandbox, ShellRunner } from "../src/index.js";
import { runOwnGit } from "../src/own-git.js";
import { gitHost } from "./git-host.js";

await loadShellParser();

/**
 * A history the worker cannot list may hold any file: a command that prints from it is refused,
 * naming why, and never run as if there were no repository. The listing runs beside the event
 * loop, so the worker's heartbeats go on while git is stuck (a FIFO planted among its refs).
 */
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-history-unlisted-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const host = gitHost(root);
const SECRET = "NPM_TOKEN=history-secret";

const RULES = `{ "*": "ask", "read_file": { "*": "allow", ".env": "deny" }, "shell_exec": { "*": "ask", "git *": "allow", "bash test.sh": "allow" } }`;
const rules: Guard = {
  agent: null,
  static: parseRulesOrThrow(RULES, { file: "p", home: root }).map(({ tool, pattern, action, origin }) => ({ tool, pattern, action, origin })),
  runtime: [],
  protectedPaths: [],
};

/** A repository where `.env` was committed once, then removed: only its history holds it. */
function leaked(name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  host(
    `git init -q . && echo x > app.ts && echo '${SECRET}' > .env && git add . && git commit -qm oops && git rm -q --cached .env && git commit -qm gone`,
    dir,
  );
  return dir;
}

/** The longest the event loop went without running a 10 ms timer while `work` ran. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  const [result] = await Promise.allSettled([work()]);
  clearInterval(timer);
  return { result: result!, stallMs: Math.max(stallMs, performance.now() - last) };
}

async function run(runner: ShellRunner, guard: FileGuard, command: string): Promise<string> {
  const child = await runner.spawn(command, guard);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  await new Promise((r) => child.on("close", r));
  await child.settled;
  return out;
}

function refusal(result: PromiseSettledResult<unknown>): string {
  expect(result.status).toBe("rejected");
  return String((result as PromiseRejectedResult).reason);
}

describe("a FIFO a command planted among the refs", () => {
  it("an allowed test's `mkfifo .git/refs/heads/zz` does not let `git log -p` print the .env, nor stall the worker", async () => {
    const work = leaked("fifo-ref");
    fs.writeFileSync(path.join(work, "test.sh"), "mkfifo .git/refs/heads/zz\n");
    const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
    const guard = new GuardCache(work).get(rules);
    try {
      await expect(run(runner, guard, "git log -p")).rejects.toThrow(/\.env, denied to read_file/);
      await run(runner, guard, "bash test.sh");
      expect(fs.lstatSync(path.join(work, ".git/refs/heads/zz")).isFIFO()).toBe(true);
      const { result, stallMs } = await longestStall(() => run(runner, guard, "git log -p"));
      expect(stallMs).toBeLessThan(500);
      expect(refusal(result)).toMatch(
        /refused shell_exec: git log prints files from git's history .* could not list \(.*\/\.git\/refs\/heads\/zz, one of git's files, is not a regular file\)/,
      );
    } finally {
      runner.close();
    }
  });
});

describe("git stuck past its deadline", () => {
  it.each(["HEAD", "config"])(
    "a FIFO as .git/%s: the confined listing ends at its deadline, the command is refused naming it, the loop runs on",
    async (file) => {
      const work = leaked(`fifo-${file}`);
      fs.rmSync(path.join(work, ".git", file));
      host(`mkfifo .git/${file}`, work);
      const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
      try {
        const { result, stallMs } = await longestStall(() => run(runner, new GuardCache(work).get(rules), "git log -p"));
        expect(stallMs).toBeLessThan(500);
        expect(refusal(result)).toMatch(/could not list \(git rev-parse did not finish within 5000 ms\)/);
      } finally {
        runner.close();
      }
    },
  );

  it("with the sandbox off, git on the host is bounded alike", async () => {
    const work = leaked("fifo-host");
    host("rm .git/HEAD && mkfifo .git/HEAD", work);
    const guard = new FileGuard(rules, work, new GitHistory(work, 1_000));
    const { result, stallMs } = await longestStall(() => guard.checkShell("git log -p"));
    expect(stallMs).toBeLessThan(500);
    expect(refusal(result)).toMatch(/could not list \(git rev-parse did not finish within 1000 ms\)/);
  });
});

describe("what still means no history", () => {
  it("outside a repository git's printing commands are not held", async () => {
    const plain = path.join(root, "plain");
    fs.mkdirSync(plain);
    await expect(new GuardCache(plain).get(rules).checkShell("git log -p")).resolves.toBeUndefined();
  });

  it("git log -p runs in a repository whose refs are all plain files", async () => {
    const clean = path.join(root, "clean");
    fs.mkdirSync(clean);
    host("git init -q . && echo y > app.ts && git add . && git commit -qm one && git branch other", clean);
    await expect(new GuardCache(clean).get(rules).checkShell("git log -p")).resolves.toBeUndefined();
  });
});

describe("how a run of the worker's own git fails, in words", () => {
  it("one that cannot start, one killed by a signal, one past its deadline", async () => {
    expect((await runOwnGit([path.join(root, "no-such-git")], root)).failure).toMatch(/^could not start: .*no-such-git: not found$/);
    expect((await runOwnGit(["sh", "-c", "kill -TERM $$"], root)).failure).toBe("was killed by SIGTERM");
    const slow = await runOwnGit(["sleep", "30"], root, undefined, 200);
    expect(slow).toMatchObject({ status: null, failure: "did not finish within 200 ms" });
  });
});
