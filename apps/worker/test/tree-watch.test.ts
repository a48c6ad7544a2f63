import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { FileGuard, resolveSandbox, ShellRunner, WorkTree } from "../src/index.js";
import { passBarrier, TreeWatch, type WatchFn } from "../src/sandbox/tree-watch.js";
import { defaultGuardRules } from "./default-guard-rules.js";

await loadShellParser();
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-tree-watch-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const defaults = defaultGuardRules();
const guardRules: Guard = {
  agent: null,
  static: [...defaults, { tool: "shell_exec", pattern: "*", action: "allow", origin: "person" }],
  runtime: [],
  protectedPaths: [],
};
const info = resolveSandbox({ mode: "required", network: false });

function workDir(name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".env"), "KEY=top-secret\n");
  fs.writeFileSync(path.join(dir, "src", "a.ts"), "KEY=top-secret\n");
  return dir;
}

async function run(runner: ShellRunner, guard: FileGuard, command: string): Promise<string> {
  const child = await runner.start(command, guard);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (out += d));
  await new Promise((resolve) => child.on("close", resolve));
  return out;
}

const names = (tree: WorkTree) => [...tree.listings()].flatMap(([dir, l]) => l.entries.map((e) => path.join(dir, e.name)));
const watchIn = (dir: string, fail: (dir: string) => Error | null, made: fs.FSWatcher[] = []): WatchFn => {
  return (d, listener) => {
    const err = d.startsWith(dir) ? fail(d) : null;
    if (err) throw err;
    const watcher = fs.watch(d, { persistent: false }, listener);
    made.push(watcher);
    return watcher;
  };
};

describe("the work directory kept current by change notices", () => {
  it("masks on the next call what the last call or anyone else made, without walking the tree", async () => {
    const work = workDir("notices");
    const runner = new ShellRunner(work, info);
    const guard = new FileGuard(guardRules, work);
    await runner.profile(guard);
    await runner.profile(guard);
    const { walks } = runner.treeState;

    await run(runner, guard, "echo KEY=top-secret > made.env && mkdir -p new/sub && ln -s ../../src/a.ts new/sub/link.env");
    expect(await run(runner, guard, "cat made.env src/a.ts new/sub/link.env")).not.toContain("top-secret");

    // Made by someone else just before the call, with no turn of the event loop in between: in a
    // new folder, under another name first, then renamed into place.
    fs.mkdirSync(path.join(work, "fresh", "deeper"), { recursive: true });
    fs.writeFileSync(path.join(work, "fresh", "deeper", "staging"), "KEY=top-secret\n");
    fs.renameSync(path.join(work, "fresh", "deeper", "staging"), path.join(work, "fresh", "deeper", "moved.env"));
    const profile = await runner.profile(guard);
    expect(profile.masked.map((m) => m.path)).toContain(path.join(work, "fresh", "deeper", "moved.env"));
    expect(await run(runner, guard, "cat fresh/deeper/moved.env")).not.toContain("top-secret");
    expect(runner.treeState).toEqual({ walks, fallback: null });

    fs.rmSync(path.join(work, "fresh"), { recursive: true });
    expect((await runner.profile(guard)).masked.map((m) => m.path)).not.toContain(path.join(work, "fresh", "deeper", "moved.env"));
    runner.close();
  });

  it("follows a folder put in place of a watched one", async () => {
    const work = workDir("swap");
    fs.mkdirSync(path.join(work, "a"));
    fs.mkdirSync(path.join(work, "b"));
    const tree = new WorkTree(work);
    tree.watchChanges();
    for (let i = 0; i < 3; i++) await tree.update();
    fs.renameSync(path.join(work, "a"), path.join(work, "old"));
    fs.renameSync(path.join(work, "b"), path.join(work, "a"));
    await tree.update();
    fs.writeFileSync(path.join(work, "a", "late.env"), "x");
    fs.writeFileSync(path.join(work, "old", "other.env"), "x");
    await tree.update();
    expect(names(tree)).toEqual(expect.arrayContaining([path.join(work, "a", "late.env"), path.join(work, "old", "other.env")]));
    expect(tree.fallback).toBeNull();
    tree.stopWatching();
  });

  it("follows a folder removed and made again, which often gets the inode number of the one removed", async () => {
    const work = workDir("again");
    const tree = new WorkTree(work);
    tree.watchChanges();
    for (let i = 0; i < 4; i++) await tree.update();
    const walks = tree.walks;
    fs.rmSync(path.join(work, "src"), { recursive: true });
    fs.mkdirSync(path.join(work, "src"));
    await tree.update();
    fs.writeFileSync(path.join(work, "src", "again.env"), "x");
    await tree.update();
    expect(names(tree)).toContain(path.join(work, "src", "again.env"));
    expect(tree.walks).toBeLessThanOrEqual(walks + 2);
    tree.stopWatching();
  });

  it("reads anew what is under a folder put in place of a watched one", async () => {
    const work = workDir("parent-swap");
    fs.mkdirSync(path.join(work, "src", "inner"));
    fs.writeFileSync(path.join(work, "src", "inner", "x.ts"), "x");
    const tree = new WorkTree(work);
    tree.watchChanges();
    for (let i = 0; i < 4; i++) await tree.update();
    fs.renameSync(path.join(work, "src"), path.join(work, "gone"));
    fs.mkdirSync(path.join(work, "src", "inner"), { recursive: true });
    fs.writeFileSync(path.join(work, "src", "inner", "late.env"), "x");
    await tree.update();
    expect(names(tree)).toContain(path.join(work, "src", "inner", "late.env"));
    expect(names(tree)).not.toContain(path.join(work, "src", "inner", "x.ts"));
    expect(names(tree)).toContain(path.join(work, "gone", "inner", "x.ts"));
    tree.stopWatching();
  });

  it("a barrier whose notice waits behind a long blocked turn of the event loop still passes", async () => {
    const watch = watchIn(root, () => null);
    expect(await passBarrier(watch, 50)).not.toBeNull();
    // Touched and then blocked after this turn's notices were read: the next turn runs its timers
    // before it reads the notice.
    const mark = await new Promise<ReturnType<typeof passBarrier>>((resolve) =>
      setImmediate(() => {
        const passing = passBarrier(watch, 50);
        const until = Date.now() + 150;
        while (Date.now() < until);
        resolve(passing);
      }),
    );
    expect(await mark).not.toBeNull();
  });

  it("walks on every call, and says so once, when a folder cannot be watched", async () => {
    const work = workDir("no-watch");
    const reasons: string[] = [];
    const tree = new WorkTree(work);
    tree.watchChanges((r) => reasons.push(r), new TreeWatch(watchIn(work, () => Object.assign(new Error("no space"), { code: "ENOSPC" }))));
    await tree.update();
    fs.writeFileSync(path.join(work, "src", "late.env"), "x");
    await tree.update();
    expect(names(tree)).toContain(path.join(work, "src", "late.env"));
    expect(tree.walks).toBe(2);
    expect(reasons).toEqual([expect.stringMatching(/walked on every call: a folder cannot be watched \(ENOSPC\)/)]);
  });

  it("walks from the first call after a watch reports an error", async () => {
    const work = workDir("watch-error");
    const reasons: string[] = [];
    const made: fs.FSWatcher[] = [];
    const tree = new WorkTree(work);
    tree.watchChanges((r) => reasons.push(r), new TreeWatch(watchIn(work, () => null, made)));
    for (let i = 0; i < 3; i++) await tree.update();
    const walks = tree.walks;
    made.at(-1)!.emit("error", new Error("watch lost"));
    fs.writeFileSync(path.join(work, "src", "late.env"), "x");
    await tree.update();
    expect(names(tree)).toContain(path.join(work, "src", "late.env"));
    expect(tree.walks).toBe(walks + 1);
    expect(reasons).toEqual([expect.stringMatching(/a watch failed: watch lost/)]);
  });

  it("walks again after more changes than the notice queue is sure to hold, then trusts notices again", async () => {
    const work = workDir("burst");
    const tree = new WorkTree(work);
    tree.watchChanges(undefined, new TreeWatch(undefined, 64));
    for (let i = 0; i < 3; i++) await tree.update();
    const walks = tree.walks;
    await tree.update();
    expect(tree.walks).toBe(walks);
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(work, "src", `f${i}.ts`), "x");
    await tree.update();
    expect(tree.walks).toBe(walks + 1);
    expect(names(tree)).toContain(path.join(work, "src", "f19.ts"));
    for (let i = 0; i < 3; i++) await tree.update();
    const settled = tree.walks;
    await tree.update();
    expect(tree.walks).toBe(settled);
    expect(tree.fallback).toBeNull();
    tree.stopWatching();
  });
});
