// Decision cost of the policy engine: median and p99 per decision, decisions per second, and
// RSS before and after 1,000,000 decisions. Prints figures; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  DEFAULT_RULES_TEXT,
  evaluate,
  loadShellParser,
  parseRulesOrThrow,
  Ruleset,
  type EvaluationContext,
  type ToolCall,
  parseShellOnly,
} from "@gatehouse/policy";
import { RulesFileCache } from "@gatehouse/policy/node";
import { EVERYDAY_COMMANDS, EVERYDAY_RULES, PUBLISHED_COMMANDS, PUBLISHED_RULES, WRAPPED_COMMANDS, WRAPPED_RULES } from "../test/corpus/everyday.js";

const HOME = "/home/ada";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-bench-"));
const rulesFile = path.join(dir, "permissions.jsonc");
fs.writeFileSync(
  rulesFile,
  DEFAULT_RULES_TEXT.replace(
    '"shell_exec": "ask"',
    '"shell_exec": { "*": "ask", "ls *": "allow", "git status": "allow", "cat *": "allow", "grep *": "allow", "rm *": "deny" }',
  ),
);
const cache = new RulesFileCache();

await loadShellParser();
const ctx = (): EvaluationContext => ({ layers: { static: cache.load(rulesFile, { home: HOME }) }, cwd: "/work/project", home: HOME });

const files: ToolCall[] = ["src/index.ts", "config/.env", "README.md", "/etc/hosts", "a/b/c/secret.json", ".env.example"].map((p) => ({
  tool: "read_file",
  args: { path: p },
}));
const short: ToolCall[] = ["ls -la", "git status", "cat README.md", "npm test", "rm -rf build", "grep -n foo src/a.ts"].map((command) => ({
  tool: "shell_exec",
  args: { command },
}));
const pipelines: ToolCall[] = [
  'cat $(ls *.ts) | grep -v test | wc -l && echo "done $(date)"',
  "find . -name '*.log' | xargs grep -l error | sort | uniq -c > report.txt",
  'git log --oneline -5 | while read l; do echo "$l"; done; sudo -u web timeout 5 curl -s http://x | jq .',
].map((command) => ({ tool: "shell_exec", args: { command } }));
const scriptLines = [
  "set -e",
  'for f in $(ls src); do echo "$f"; done',
  "if [ -f .env ]; then echo found; fi",
  "cd build && make -j2 || exit 1",
  'tar czf out.tgz dist && echo "$(sha256sum out.tgz)"',
];
let script = "";
while (script.length < 2048) script += `${scriptLines[script.length % scriptLines.length]}\n`;
const scripts: ToolCall[] = [{ tool: "shell_exec", args: { command: script.slice(0, 2048) } }];

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/**
 * A shell decision beside the bare tree-sitter parse of the same text: the gate's own cost is the
 * ratio. Both are timed in alternating turns of a few calls, and the fastest turn of each is kept,
 * so that other work on the machine slows neither figure more than the other.
 */
function versusParse(name: string, command: string, n: number): void {
  const fixed = ctx();
  const call: ToolCall = { tool: "shell_exec", args: { command } };
  const turn = Math.max(2, Math.round(n / 500));
  for (let i = 0; i < Math.min(n, 2000); i++) {
    parseShellOnly(command);
    evaluate(call, fixed);
  }
  const fastest = (run: () => void): number => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < turn; i++) run();
    return Number(process.hrtime.bigint() - t0) / 1000 / turn;
  };
  let parse = Infinity;
  let decide = Infinity;
  for (let round = 0; round < 400; round++) {
    parse = Math.min(
      parse,
      fastest(() => parseShellOnly(command)),
    );
    decide = Math.min(
      decide,
      fastest(() => evaluate(call, fixed)),
    );
  }
  console.log([name.padEnd(30), parse.toFixed(2).padStart(10), decide.toFixed(2).padStart(12), `${(decide / parse).toFixed(2)}x`.padStart(8)].join(" "));
}

function measure(name: string, calls: ToolCall[], n: number, withFileCheck: boolean): void {
  const fixed = ctx();
  for (let i = 0; i < Math.min(n, 2000); i++) evaluate(calls[i % calls.length]!, withFileCheck ? ctx() : fixed);
  const samples = new Float64Array(n);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    evaluate(calls[i % calls.length]!, withFileCheck ? ctx() : fixed);
    samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  const total = Number(process.hrtime.bigint() - start) / 1e9;
  samples.sort();
  const row = [
    name.padEnd(44),
    percentile(samples, 0.5).toFixed(2).padStart(9),
    percentile(samples, 0.99).toFixed(2).padStart(9),
    Math.round(n / total)
      .toLocaleString("en")
      .padStart(12),
  ];
  console.log(row.join(" "));
}

console.log(`node ${process.version}, ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ""}`);
console.log(`${"decision".padEnd(44)} ${"p50 µs".padStart(9)} ${"p99 µs".padStart(9)} ${"decisions/s".padStart(12)}`);
measure("file tool (read_file, 6 paths)", files, 200_000, false);
measure("file tool, rules file checked (stat) per call", files, 200_000, true);
measure("short shell command (6 commands)", short, 50_000, false);
measure("pipeline with substitutions (3 commands)", pipelines, 20_000, false);
measure("2 KB script", scripts, 500, false);

console.log("");
console.log(`${"shell input (fastest turn)".padEnd(30)} ${"parse µs".padStart(10)} ${"decision µs".padStart(12)} ${"ratio".padStart(8)}`);
versusParse("git status", "git status", 20_000);
versusParse("ls -la", "ls -la", 20_000);
versusParse("pipeline of readers", "cat README.md | grep -n foo | sort | uniq -c | head", 10_000);
versusParse("2 KB script", script.slice(0, 2048), 500);

const mix = [...files, ...files, ...short, ...pipelines];
global.gc?.();
const before = process.memoryUsage().rss;
const fixed = ctx();
const t0 = process.hrtime.bigint();
for (let i = 0; i < 1_000_000; i++) evaluate(mix[i % mix.length]!, fixed);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
global.gc?.();
const after = process.memoryUsage().rss;
const mb = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
console.log(
  `1,000,000 mixed decisions in ${seconds.toFixed(1)} s; RSS before ${mb(before)}, after ${mb(after)} (${after >= before ? "+" : ""}${mb(after - before)})`,
);

/** The share of a corpus of everyday lines that rules allowing their programs let through. */
function shareAllowed(label: string, rulesText: string, commands: readonly string[]): void {
  const layers = { static: new Ruleset(parseRulesOrThrow(rulesText, { file: "everyday.jsonc", home: HOME })) };
  const asked = commands.filter(
    (command) => evaluate({ tool: "shell_exec", args: { command } }, { layers, cwd: "/work/project", home: HOME }).action !== "allow",
  );
  const share = ((commands.length - asked.length) / commands.length) * 100;
  console.log(
    `${label}: ${commands.length - asked.length} of ${commands.length} allowed (${share.toFixed(1)}%)${asked.length ? `; not allowed: ${asked.join(" | ")}` : ""}`,
  );
}
shareAllowed("everyday lines", EVERYDAY_RULES, EVERYDAY_COMMANDS);
shareAllowed("wrappers named with their program", WRAPPED_RULES, WRAPPED_COMMANDS);
shareAllowed("published lines (CI files, READMEs, transcripts)", PUBLISHED_RULES, PUBLISHED_COMMANDS);
fs.rmSync(dir, { recursive: true, force: true });
