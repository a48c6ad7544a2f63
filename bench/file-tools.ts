// What one file tool call costs in the worker's own process: the decision on the name, the open
// and the check of what was opened, whole read_file calls of a small and of a 1 MB file, the small
// one with the path its decision assumed checked first; glob and grep over a tree of 2,000 files
// (their patterns and the .gitignore run in a thread); and, for the design not chosen, the same
// small read run through the sandbox (bubblewrap, `cat`). Runs on any checkout (a part a checkout
// lacks prints "-"), so figures of two versions can be set side by side. Medians and minima of
// batches; the machine may be shared, so compare runs interleaved.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_RULES_TEXT, loadShellParser, parseRulesOrThrow } from "@gatehouse/policy";
import type { Guard, RunMessage } from "@gatehouse/protocol";
import { BUILTIN_TOOLS, FileGuard, resolveSandbox, runTool, ShellRunner, type ToolContext } from "../apps/worker/src/index.js";

const BATCHES = 7;
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-bench-files-")));
fs.writeFileSync(path.join(root, "a.txt"), "a small file\n");
fs.writeFileSync(path.join(root, "big.txt"), `${"x".repeat(99)}\n`.repeat(10_486));
for (let d = 0; d < 100; d++) {
  fs.mkdirSync(path.join(root, "tree", `d${d}`), { recursive: true });
  for (let f = 0; f < 20; f++) fs.writeFileSync(path.join(root, "tree", `d${d}`, `f${f}.${f % 2 ? "ts" : "js"}`), "const x = 1;\n");
}
fs.writeFileSync(path.join(root, "tree", ".gitignore"), "*.log\nbuild/\n**/generated/**\n");

await loadShellParser();
const rules = parseRulesOrThrow(DEFAULT_RULES_TEXT, { file: "p", home: "/" }).map(({ tool, pattern, action, origin }) => ({ tool, pattern, action, origin }));
const guardRules: Guard = { agent: null, static: rules, runtime: [], protectedPaths: [path.join(os.tmpdir(), "gh-bench-none")] };
const guard = new FileGuard(guardRules, root);
const signal = new AbortController().signal;
const message = (file: string, toolName = "read_file", args: Record<string, unknown> = { path: file }): RunMessage => ({
  type: "run",
  requestId: "r",
  sessionId: "s",
  toolName,
  args,
  timeoutMs: 10_000,
  guard: guardRules,
  granted: "rules",
});

/** The small read as the server sends it to a worker that checks assumed paths (a checkout without the check ignores the field). */
const small = path.join(root, "a.txt");
const assumedSmall = { ...message("a.txt"), assumed: { [small]: { real: small } } };

/** Microseconds per call: the median and the minimum over batches of `n` calls. */
async function perCall(n: number, f: () => unknown): Promise<{ p50: number; min: number }> {
  const batches: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await f();
    batches.push(((performance.now() - t0) * 1000) / n);
  }
  batches.sort((a, b) => a - b);
  return { p50: batches[Math.floor(BATCHES / 2)]!, min: batches[0]! };
}

const line = (label: string, r: { p50: number; min: number } | null) =>
  console.log(`  ${label.padEnd(52)} ${r ? `p50 ${r.p50.toFixed(1).padStart(8)} µs   min ${r.min.toFixed(1).padStart(8)} µs` : "-"}`);

/** The open-then-check step alone, where this checkout has it. */
async function openAndCheck(): Promise<(() => void) | null> {
  const mod = (await import("../apps/worker/src/checked-open.js").catch(() => null)) as {
    openChecked: (ctx: ToolContext, tool: string, requested: string) => { fd: number };
  } | null;
  if (!mod) return null;
  const ctx = { workDir: root, guard, granted: "rules", signal, timeoutMs: 10_000 } as ToolContext;
  return () => fs.closeSync(mod.openChecked(ctx, "read_file", "a.txt").fd);
}

console.log(`node ${process.version}, ${os.cpus().length} cores; file tools in the worker's own process, default rules`);
for (let round = 0; round < 2; round++) {
  line("decision on the name (FileGuard.check)", await perCall(20_000, () => guard.check("read_file", "a.txt")));
  const open = await openAndCheck();
  line("open, and check of what was opened", open ? await perCall(20_000, open) : null);
  line("read_file of a 13-byte file (whole call)", await perCall(5_000, () => runTool(BUILTIN_TOOLS, message("a.txt"), guard, signal)));
  line("read_file of a 1 MB file (whole call)", await perCall(200, () => runTool(BUILTIN_TOOLS, message("big.txt"), guard, signal)));
  line("the 13-byte read_file with its assumed path checked", await perCall(5_000, () => runTool(BUILTIN_TOOLS, assumedSmall, guard, signal)));
  const glob = message("tree", "glob", { pattern: "**/*.ts", path: "tree" });
  line("glob **/*.ts over 2,000 files (whole call)", await perCall(10, () => runTool(BUILTIN_TOOLS, glob, guard, signal)));
  const grep = message("tree", "grep", { pattern: "x = 1", path: "tree", include: "*.ts" });
  line("grep, include *.ts, over 2,000 files (whole call)", await perCall(10, () => runTool(BUILTIN_TOOLS, grep, guard, signal)));
}
const sandbox = resolveSandbox({ mode: "auto", network: true });
if (sandbox.active) {
  const runner = new ShellRunner(root, sandbox, { watch: false });
  const cat = () =>
    new Promise<void>((resolve) => {
      void runner.start("cat a.txt", guard).then((child) => {
        child.stdout!.resume();
        child.stderr!.resume();
        child.on("close", () => resolve());
      });
    });
  line("the same small read through the sandbox (bwrap cat)", await perCall(20, cat));
  runner.close();
}
fs.rmSync(root, { recursive: true, force: true });
