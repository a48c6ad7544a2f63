import { isStricter, stricter, type Action } from "../action.js";
import { decideFile, decideSubject, isProtected, type DecideContext } from "../decide.js";
import type { Verdict } from "../decision.js";
import { absolutePath } from "../paths.js";
import { analyzeShell, type AnalyzedCommand, type ShellAnalysis } from "./analyze.js";
import { withoutLeadingOptions } from "./arity.js";
import { changesWhatRuns, dangerousOption, fileOperands, FILE_READERS, FILE_WRITERS, INTERPRETERS } from "./programs.js";
import { isLiteral, type ShellWord } from "./words.js";
import { programName, SHELLS } from "./wrappers.js";

const TOOL = "shell_exec";
const HARMLESS_TARGETS = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

export interface ShellDecision {
  verdicts: Verdict[];
  analysis: ShellAnalysis;
}

const text = (s: string): { kind: "text"; text: string } => ({ kind: "text", text: s });

function atLeast(v: Verdict, action: Action, reason: string, rule: Verdict["rule"] = null): Verdict {
  return isStricter(action, v.action) ? { ...v, action, rule, reason } : v;
}

/** As written, by basename, and without options before the subcommand; the stricter counts. */
function matchCommand(words: string[], layers: DecideContext["layers"]): Verdict {
  const subject = words.join(" ");
  let verdict = decideSubject(layers, TOOL, text(subject), subject);
  const name = words[0] ?? "";
  const readings = name.includes("/") ? [[programName(name), ...words.slice(1)]] : [];
  for (const r of [...readings, words]) readings.push(...withoutLeadingOptions(r));
  for (const reading of readings) {
    const seen = reading.join(" ");
    const v = decideSubject(layers, TOOL, text(seen), subject);
    // A catch-all speaks of no command in particular; only a rule that names one may tighten.
    if (v.rule && v.rule.pattern !== "*" && isStricter(v.action, verdict.action)) {
      verdict = { ...v, reason: `seen as "${seen}": ${v.reason}` };
    }
  }
  return verdict;
}

function runsHiddenScript(cmd: AnalyzedCommand, program: string): string | null {
  if (cmd.opaque) return cmd.opaque;
  const runsCode = SHELLS.has(program) || INTERPRETERS.has(program) || program === "source" || program === ".";
  if (!runsCode) return null;
  const positional = cmd.words.slice(1).filter((w) => !w.text.startsWith("-"));
  if (positional.some((w) => w.dynamic)) return `${program} runs a script that is only known when the shell runs`;
  const readsStdin = positional.length === 0 || cmd.words.some((w) => w.text === "-s" || w.text === "-");
  if (cmd.stdin && readsStdin && program !== "source" && program !== ".") return `${program} runs a script fed by a ${cmd.stdin}`;
  return null;
}

/** `$HOME/x` and `${HOME}/x` name a known file: the worker's home is the evaluation's home. */
function knownPath(word: ShellWord): string | null {
  if (isLiteral(word)) return word.text;
  const m = /^(?:\$HOME|\$\{HOME\}|"\$HOME"|"\$\{HOME\}")(\/[^$`*?[{}"'\\]*)?$/.exec(word.raw);
  return m ? `$HOME${m[1] ?? ""}` : null;
}

function checkOperands(cmd: AnalyzedCommand, program: string, ctx: DecideContext, v: Verdict): Verdict {
  const reader = FILE_READERS.has(program);
  if (cmd.unknownArgs && reader) v = atLeast(v, "ask", `${cmd.via} feeds ${program} file names that cannot be checked`);
  for (const word of fileOperands(program, cmd.words)) {
    const file = knownPath(word);
    if (file === null) {
      if (reader) v = atLeast(v, "ask", `${program} reads "${word.raw}", which names files only known when the shell runs`);
      continue;
    }
    if (file === "" || file.includes("\0")) continue;
    const read = decideFile("read_file", file, ctx);
    if (read.action === "deny") {
      v = atLeast(v, reader ? "deny" : "ask", `${program} is given ${file}, which read_file denies: ${read.reason}`, read.rule);
    }
    const guard = ctx.protectedPaths && isProtected(absolutePath(file, ctx.cwd, ctx.home), ctx);
    if (guard) v = atLeast(v, FILE_WRITERS.has(program) ? "deny" : "ask", `${program} is given ${file}, inside the protected path ${guard}`);
  }
  return v;
}

function fileVerdict(tool: "write_file" | "read_file", word: ShellWord, ctx: DecideContext, how: string): Verdict | null {
  if (tool === "write_file" && HARMLESS_TARGETS.test(word.text)) return null;
  const file = knownPath(word);
  if (file === null) return { action: "ask", subject: word.raw, rule: null, reason: `${how} ${word.raw}, a file only known when the shell runs` };
  const v = decideFile(tool, file, ctx);
  return { ...v, reason: `${how} ${file}, checked as ${tool}: ${v.reason}` };
}

function commandVerdict(cmd: AnalyzedCommand, ctx: DecideContext): Verdict {
  const words = cmd.words.map((w) => w.text);
  const program = programName(words[0] ?? "");
  let v: Verdict = { ...matchCommand(words, ctx.layers), command: { words, ...(cmd.wrapper ? { wrapper: cmd.wrapper } : {}) } };
  if (cmd.words[0] && !isLiteral(cmd.words[0])) v = atLeast(v, "ask", `the command name "${cmd.words[0].raw}" is only known when the shell runs`);
  const assigned = cmd.assignments.find((a) => changesWhatRuns(a.name));
  if (assigned) v = atLeast(v, "ask", `it sets ${assigned.name}, which changes what runs`);
  const hidden = runsHiddenScript(cmd, program);
  if (hidden) v = atLeast(v, "ask", hidden);
  v = checkOperands(cmd, program, ctx, v);
  const danger = dangerousOption(program, cmd.words);
  if (danger) v = atLeast(v, "ask", danger);
  return v;
}

function strictest(verdicts: Verdict[], base: Verdict): Verdict {
  let out = base;
  for (const f of verdicts) if (isStricter(f.action, out.action)) out = { ...f, subject: base.subject, ...(base.command ? { command: base.command } : {}) };
  return out;
}

/** One verdict per sub-command (with its redirections folded in) and per loose file touched. */
export function decideShell(command: string, ctx: DecideContext): ShellDecision {
  const analysis = analyzeShell(command);
  const verdicts: Verdict[] = [];
  for (const cmd of analysis.commands) {
    const files = [
      ...cmd.writes.map((w) => fileVerdict("write_file", w, ctx, "it writes")),
      ...(programName(cmd.words[0]?.text ?? "") === "tee" ? fileOperands("tee", cmd.words).map((w) => fileVerdict("write_file", w, ctx, "tee writes")) : []),
      ...cmd.reads.map((w) => fileVerdict("read_file", w, ctx, "it reads")),
    ].filter((f): f is Verdict => f !== null);
    const subject = cmd.words.map((w) => w.text).join(" ");
    const base = cmd.words.length > 0 ? commandVerdict(cmd, ctx) : { action: "allow" as const, subject, rule: null, reason: "it only sets variables" };
    verdicts.push(strictest(files, base));
  }
  const loose = [
    ...analysis.loose.writes.map((w) => fileVerdict("write_file", w, ctx, "a redirection writes")),
    ...analysis.loose.reads.map((w) => fileVerdict("read_file", w, ctx, "a redirection reads")),
  ];
  for (const f of loose) if (f) verdicts.push(f);
  for (const a of analysis.assignments) {
    if (changesWhatRuns(a.name)) verdicts.push({ action: "ask", subject: `${a.name}=`, rule: null, reason: `it sets ${a.name}, which changes what later commands run` });
  }
  if (analysis.parseError) verdicts.push({ action: "ask", subject: command, rule: null, reason: "the command does not parse cleanly, so what it runs cannot be known" });
  if (verdicts.length === 0) {
    const whole = command.trim();
    verdicts.push(decideSubject(ctx.layers, TOOL, text(whole), whole));
  }
  return { verdicts, analysis };
}

/** Any deny: deny; else any ask: ask; else allow. The verdict that decided it. */
export function decidingVerdict(verdicts: readonly Verdict[]): Verdict {
  let pick = verdicts[verdicts.length - 1]!;
  let action: Action = "allow";
  for (const v of verdicts) {
    const next = stricter(action, v.action);
    if (next !== action) {
      action = next;
      pick = v;
    }
  }
  return pick;
}
