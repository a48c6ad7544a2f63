import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_TOOLS, FileGuard, OUTPUT_LIMIT, runTool } from "../src/index.js";
import { defaultGuardRules } from "./default-guard-rules.js";

await loadShellParser();
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-tools-")));
const work = path.join(root, "work");
fs.mkdirSync(path.join(work, "src"), { recursive: true });
fs.mkdirSync(path.join(work, "skills", "deploy"), { recursive: true });
fs.mkdirSync(path.join(root, "outside"));
fs.writeFileSync(path.join(work, "lines.txt"), "one\ntwo\nthree\nfour\n");
fs.writeFileSync(path.join(work, ".env"), "KEY=1\n");
fs.writeFileSync(path.join(work, "src", "a.ts"), "export const key = 1;\n");
fs.writeFileSync(path.join(work, "src", "secret.ts"), "export const key = 2;\n");
fs.writeFileSync(path.join(work, "skills", "deploy", "SKILL.md"), "---\ndescription: ship it\n---\nRun the deploy.\n");
fs.symlinkSync(".env", path.join(work, "notes.txt"));
fs.symlinkSync(path.join(root, "outside"), path.join(work, "escape"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const rules = defaultGuardRules();
const guard: Guard = { agent: null, static: rules, runtime: [], protectedPaths: [path.join(root, "data")] };

function run(toolName: string, args: Record<string, unknown>) {
  const message = { type: "run", requestId: "r", sessionId: "s", toolName, args, timeoutMs: 10_000, guard, granted: "rules" } as const;
  return runTool(BUILTIN_TOOLS, message, new FileGuard(guard, work), new AbortController().signal);
}

describe("file tools", () => {
  it("read_file reads whole files and line ranges", async () => {
    expect(await run("read_file", { path: "lines.txt" })).toEqual({ ok: true, output: "one\ntwo\nthree\nfour\n" });
    expect(await run("read_file", { path: "lines.txt", offset: 2, limit: 2 })).toEqual({ ok: true, output: "two\nthree" });
  });

  it("read_file refuses a denied file, also through a symlink", async () => {
    expect((await run("read_file", { path: ".env" })).output).toMatch(/^refused read_file \.env/);
    expect((await run("read_file", { path: "notes.txt" })).output).toMatch(/resolves to .*\.env/);
  });

  it("write_file creates folders, and refuses protected paths and writes a symlink leads outside", async () => {
    expect(await run("write_file", { path: "new/dir/x.txt", content: "hi" })).toEqual({ ok: true, output: "wrote 2 bytes to new/dir/x.txt" });
    expect(fs.readFileSync(path.join(work, "new/dir/x.txt"), "utf8")).toBe("hi");
    expect((await run("write_file", { path: path.join(root, "data", "x"), content: "" })).output).toMatch(/protected path/);
    expect((await run("write_file", { path: "escape/x.txt", content: "" })).output).toMatch(/a symlink leads outside the work directory/);
  });

  it("edit_file replaces a unique string, and says why when it cannot", async () => {
    fs.writeFileSync(path.join(work, "e.txt"), "a b a");
    expect(await run("edit_file", { path: "e.txt", old_string: "b", new_string: "B" })).toMatchObject({ ok: true });
    expect(await run("edit_file", { path: "e.txt", old_string: "zzz", new_string: "y" })).toEqual({
      ok: false,
      output: "edit_file e.txt: old_string was not found in the file",
    });
    expect((await run("edit_file", { path: "e.txt", old_string: "a", new_string: "y" })).output).toMatch(/occurs 2 times/);
    expect(await run("edit_file", { path: "e.txt", old_string: "a", new_string: "y", replace_all: true })).toMatchObject({ ok: true });
    expect(fs.readFileSync(path.join(work, "e.txt"), "utf8")).toBe("y B y");
  });

  it("names bad arguments and unknown tools", async () => {
    expect(await run("read_file", { path: 3 })).toEqual({ ok: false, output: "invalid arguments for read_file: path: path must be a string" });
    expect(await run("nope", {})).toEqual({ ok: false, output: "this worker has no tool named nope" });
  });

  it("cuts long output with a marker", async () => {
    fs.writeFileSync(path.join(work, "big.txt"), "x".repeat(OUTPUT_LIMIT + 500));
    const r = await run("read_file", { path: "big.txt" });
    expect(r.output).toMatch(/… \[output cut: 500 more characters\]$/);
  });
});

describe("glob and grep", () => {
  it("never reveal a file read_file is denied, and say how many they skipped", async () => {
    const g = await run("glob", { pattern: "**/*.ts" });
    expect(g.output).toBe("src/a.ts\n(1 file(s) skipped: read_file does not allow them)");
    const r = await run("grep", { pattern: "key", path: "src" });
    expect(r.output).toBe("src/a.ts:1:export const key = 1;\n(1 file(s) skipped: read_file does not allow them)");
    expect((await run("grep", { pattern: "KEY", path: "." })).output).not.toContain(".env:");
  });

  it("grep names an invalid pattern", async () => {
    expect((await run("grep", { pattern: "(" })).output).toMatch(/not a valid regular expression/);
  });

  it("a pattern that backtracks catastrophically is stopped within its bound, with a clear error, and the event loop never stops", async () => {
    fs.writeFileSync(path.join(work, "src", "slow.txt"), `${"a".repeat(40)}!\n`);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    const started = performance.now();
    const r = await run("grep", { pattern: "^(a+)+$", path: "src/slow.txt" }).finally(() => clearInterval(ticker));
    const took = performance.now() - started;
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/^grep: the pattern ran longer than 2000 ms on src\/slow\.txt and was stopped; .*backtracks catastrophically/);
    expect(took).toBeLessThan(6_000);
    // The loop ran all along: a tick every 50 ms, give or take a loaded machine.
    expect(ticks).toBeGreaterThan(took / 50 / 3);
    expect((await run("grep", { pattern: "a!$", path: "src/slow.txt" })).output).toBe(`src/slow.txt:1:${"a".repeat(40)}!`);
  });

  it("grep leaves out what .gitignore ignores, and node_modules, unless include_ignored is set; glob too", async () => {
    const tree = path.join(work, "ignoring");
    fs.mkdirSync(path.join(tree, "build"), { recursive: true });
    fs.mkdirSync(path.join(tree, "node_modules", "dep"), { recursive: true });
    fs.mkdirSync(path.join(tree, "src"), { recursive: true });
    fs.writeFileSync(path.join(tree, ".gitignore"), "build/\n*.log\n");
    fs.writeFileSync(path.join(tree, "src", ".gitignore"), "generated.ts\n");
    fs.writeFileSync(path.join(tree, "build", "out.js"), "needle\n");
    fs.writeFileSync(path.join(tree, "node_modules", "dep", "index.js"), "needle\n");
    fs.writeFileSync(path.join(tree, "debug.log"), "needle\n");
    fs.writeFileSync(path.join(tree, "src", "generated.ts"), "needle\n");
    fs.writeFileSync(path.join(tree, "src", "main.ts"), "needle\n");
    const note = "(4 file(s) or folder(s) ignored by .gitignore or node_modules; set include_ignored to search them)";
    expect((await run("grep", { pattern: "needle", path: "ignoring" })).output).toBe(`ignoring/src/main.ts:1:needle\n${note}`);
    expect((await run("glob", { pattern: "**/*.{ts,js,log}", path: "ignoring" })).output).toBe(`ignoring/src/main.ts\n${note}`);
    const all = await run("grep", { pattern: "needle", path: "ignoring", include_ignored: true });
    expect(all.output.split("\n").sort()).toEqual(
      ["build/out.js", "debug.log", "node_modules/dep/index.js", "src/generated.ts", "src/main.ts"].map((f) => `ignoring/${f}:1:needle`),
    );
    // A search that starts below a .gitignore still follows it.
    expect((await run("grep", { pattern: "needle", path: "ignoring/src" })).output).toBe(
      `ignoring/src/main.ts:1:needle\n(1 file(s) or folder(s) ignored by .gitignore or node_modules; set include_ignored to search them)`,
    );
  });

  it("grep searches a file in chunks to its end, line numbers kept across chunks, a binary file left out", async () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i + 1}`);
    fs.writeFileSync(path.join(work, "src", "long.txt"), `${lines.join("\n")}\nthe last line`);
    fs.writeFileSync(path.join(work, "src", "blob.bin"), Buffer.from("needle\0needle\n"));
    expect((await run("grep", { pattern: "^line (1|131072|200000)$|last", path: "src/long.txt" })).output).toBe(
      "src/long.txt:1:line 1\nsrc/long.txt:131072:line 131072\nsrc/long.txt:200000:line 200000\nsrc/long.txt:200001:the last line",
    );
    expect((await run("grep", { pattern: "needle", path: "src/blob.bin" })).output).toBe("(no matches)");
  });
});

/** Runs `work` while a timer measures the event loop: the longest it went without running, in ms. */
async function withLoopLag<T>(work: () => Promise<T>): Promise<{ result: T; lag: number; took: number }> {
  let last = performance.now();
  let lag = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last);
    last = now;
  }, 10);
  const started = performance.now();
  try {
    const result = await work();
    return { result, lag: Math.max(lag, performance.now() - last), took: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

describe("patterns that backtrack on a crafted name never block the worker", () => {
  const STARS = "*a*a*a*a*a*a*a*a*a*a*b";
  const TOO_SLOW = /ran longer than 2000 ms on .* and was stopped; it likely backtracks catastrophically/;

  it("glob: a long name the model wrote, then a pattern of many wildcards, ends in time with an error naming the pattern", async () => {
    expect(await run("write_file", { path: `redos/${"a".repeat(80)}`, content: "x" })).toMatchObject({ ok: true });
    const { result, lag, took } = await withLoopLag(() => run("glob", { pattern: STARS, path: "redos" }));
    expect(result).toEqual({ ok: false, output: expect.stringMatching(TOO_SLOW) });
    expect(result.output).toMatch(/^glob: the glob "\*a\*a\*a\*a\*a\*a\*a\*a\*a\*a\*b" ran longer than 2000 ms on redos\/a{80} and was stopped/);
    expect(took).toBeLessThan(6_000);
    expect(lag).toBeLessThan(500);
    // The worker goes on: the next glob runs, and an ordinary pattern still finds the name.
    expect(await run("glob", { pattern: "*a*b", path: "redos" })).toEqual({ ok: true, output: "(no files match)" });
    expect(await run("glob", { pattern: "a*", path: "redos" })).toEqual({ ok: true, output: `redos/${"a".repeat(80)}` });
  });

  it("grep: the same pattern as include ends in time with an error naming it", async () => {
    const { result, lag, took } = await withLoopLag(() => run("grep", { pattern: "x", path: "redos", include: STARS }));
    expect(result).toEqual({ ok: false, output: expect.stringMatching(TOO_SLOW) });
    expect(result.output).toMatch(/^grep: the glob "\*a\*a/);
    expect(took).toBeLessThan(6_000);
    expect(lag).toBeLessThan(500);
    expect((await run("grep", { pattern: "x", path: "redos", include: "a*" })).output).toBe(`redos/${"a".repeat(80)}:1:x`);
  });

  it("a .gitignore line the repository ships, on a deep tree, ends the search in time with an error naming the file", async () => {
    const deep = path.join(work, "redos-ignore", ..."a".repeat(120).split(""));
    fs.mkdirSync(deep, { recursive: true });
    fs.writeFileSync(path.join(deep, "c"), "x\n");
    fs.writeFileSync(path.join(work, "redos-ignore", ".gitignore"), "**/a/**/a/**/a/**/a/**/a/**/a/**/b\n");
    try {
      const { result, lag, took } = await withLoopLag(() => run("glob", { pattern: "**/c", path: "redos-ignore" }));
      expect(result).toEqual({ ok: false, output: expect.stringMatching(TOO_SLOW) });
      expect(result.output).toMatch(/^glob: the patterns of redos-ignore\/\.gitignore ran longer than 2000 ms on the entries of redos-ignore\/a\/a/);
      expect(took).toBeLessThan(6_000);
      expect(lag).toBeLessThan(500);
      // Without the .gitignore the search ends and meets the file, which lies past the deepest folder the sandbox walks, so it is not shown.
      expect((await run("glob", { pattern: "**/c", path: "redos-ignore", include_ignored: true })).output).toMatch(
        /^\(no files match\)\n\(1 file\(s\) skipped/,
      );
    } finally {
      fs.rmSync(path.join(work, "redos-ignore"), { recursive: true, force: true });
    }
  });
});

describe("skill", () => {
  it("loads a skill by name and refuses names that leave the folder", async () => {
    expect(await run("skill", { name: "deploy" })).toMatchObject({ ok: true, output: expect.stringContaining("Run the deploy.") });
    expect((await run("skill", { name: "../etc" })).output).toMatch(/invalid arguments for skill: name/);
    expect(await run("skill", { name: "missing" })).toEqual({ ok: false, output: "no skill named missing in skills/" });
  });
});
