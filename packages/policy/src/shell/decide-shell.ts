import { isStricter, stricter, type Action } from "../action.js";
import { decideAbsolute, decideSubject, holdsProtected, namesProcessFiles, physically, type DecideContext } from "../decide.js";
import { isInside, normalRoot } from "../paths.js";
import { ruleNames, steeringHolderOf, steeringReason } from "../steering-files.js";
import type { Verdict } from "../decision.js";
import type { RuleRef } from "../rule.js";
import { headOf } from "../pattern.js";
import { inFolder, ORDER_LAST_FIRST, type AbsoluteDeny, type CompiledRule, type Layers, type Ruleset } from "../ruleset.js";
import { analyzeShell, programName, type AnalyzedCommand, type ShellAnalysis } from "./analyze.js";
import type { Classified } from "./classify.js";
import { mayBeAliased, readingsOf } from "./readings.js";
import { withoutLeadingOptions } from "./arity.js";
import { commandCritical, lineCritical, writesSystemFile } from "../critical.js";
import { changesTheShell, isHarmlessAssignment, isHarmlessVariable } from "./environment.js";
import { printsFromHistory } from "./git-history.js";
import { looseMatch } from "./loose-match.js";
import { isKnownProgram, takesAnyWords } from "./programs/index.js";
import { printsCredential } from "./programs/credentials.js";
import { runsCode } from "./programs/runners.js";
import { SHELL_WITHOUT_COMMAND } from "./programs/wrappers.js";
import { knownPath, ShellDirectories } from "./shell-paths.js";
import { isLiteral, type ShellWord } from "./words.js";
import { FILLS_FOLDER, writtenInto } from "./written-into.js";
import { writesUnseen } from "./unseen-writes.js";

const TOOL = "shell_exec";
/** Files a build tool or package manager runs from its project directory. */
const PROJECT_FILES: ReadonlyMap<string, readonly string[]> = new Map([
  ["make", ["Makefile", "makefile", "GNUmakefile"]],
  ...["npm", "pnpm", "yarn", "bun", "npx"].map((p) => [p, ["package.json", ".npmrc"]] as [string, string[]]),
  ["cargo", ["Cargo.toml", "build.rs", ".cargo/config.toml"]],
  ["go", ["go.mod"]],
  ["git", [".git/config"]],
  ["python", ["setup.py", "conftest.py"]],
  ["python3", ["setup.py", "conftest.py"]],
  ["pytest", ["conftest.py", "pytest.ini"]],
]);
/** Programs that run the commands of their input (dot-commands, `\!`). */
const READS_COMMANDS: ReadonlySet<string> = new Set(["sqlite3", "psql", "mysql", "mariadb", "redis-cli", "gdb", "ftp", "sftp", "bc", "dc"]);
/** Editors and pagers that run what they are given as `+command`. */
const PLUS_COMMANDS: ReadonlySet<string> = new Set(["vi", "vim", "nvim", "view", "ex", "vimdiff", "less", "more", "nano", "emacs"]);
const HARMLESS_TARGETS = /^\/dev\/(null|stdout|stderr|tty|fd\/[012])$/;
/** Programs that start a shell or an interpreter: their name as an argument may run anything. */
/** Wrappers and runners that take a program as an argument. */
const RUNS_PROGRAMS: ReadonlySet<string> = new Set(["exec", "xargs", "env", "sudo", "doas"]);

export interface ShellDecision {
  verdicts: Verdict[];
  analysis: ShellAnalysis;
  critical: string | null;
}

const text = (s: string): { kind: "text"; text: string } => ({ kind: "text", text: s });

/** Verdicts built with one shape: V8 keeps the code that reads them fast. */
function verdictOf(action: Action, subject: string, rule: Verdict["rule"], reason: string, command?: Verdict["command"]): Verdict {
  const v: Verdict = { action, subject, rule, reason };
  if (command) v.command = command;
  return v;
}

function atLeast(v: Verdict, action: Action, reason: string, rule: Verdict["rule"] = null): Verdict {
  return isStricter(action, v.action) ? verdictOf(action, v.subject, rule, reason, v.command) : v;
}

/** `v`, or what a file check found where that is stricter. */
function folded(v: Verdict, f: Verdict | null): Verdict {
  if (!f || !isStricter(f.action, v.action)) return v;
  const out = atLeast(v, f.action, f.reason, f.rule);
  // A command's pattern saved by "always" would not open the file it writes: the verdict says why it asks.
  if (f.steers) out.steers = f.steers;
  return out;
}

function anyOption(words: readonly string[]): boolean {
  for (const w of words) if (w.startsWith("-")) return true;
  return false;
}

/** Of a list of shell rules: the strictest action of those that name a command, and where the first of those stricter than allow stands (-1: none). */
interface ListSummary {
  strictest: Action;
  firstStrict: number;
}

const summaries = new WeakMap<readonly CompiledRule[], ListSummary>();

function summary(list: readonly CompiledRule[]): ListSummary {
  let found = summaries.get(list);
  if (!found) {
    let strictest: Action = "allow";
    for (const { rule } of list) if (rule.pattern !== "*") strictest = stricter(strictest, rule.action);
    found = { strictest, firstStrict: list.findIndex(({ rule }) => rule.action !== "allow" && rule.pattern !== "*") };
    summaries.set(list, found);
  }
  return found;
}

const isOption = (w: string): boolean => w.startsWith("-") && w.length > 1;

/** The shell rules of a layer that these words may match, as written or loosely: by their first word, unless it is an option. */
function rulesFor(set: Ruleset, words: readonly string[]): readonly CompiledRule[] {
  const first = words[0];
  return first === undefined || isOption(first) ? set.forTool(TOOL) : set.forHead(TOOL, headOf(first));
}

/** Whether a rule these words may match (as written or loosely) names a command and is stricter than `action`. */
function mayTighten(layers: Layers, words: readonly string[], action: Action): boolean {
  for (const layer of ORDER_LAST_FIRST) {
    const set = layers[layer];
    if (set && isStricter(summary(rulesFor(set, words)).strictest, action)) return true;
  }
  return false;
}

/** Whether a layer from `from` on (in ORDER_LAST_FIRST) holds a rule a loose match of these words could be decided by. */
function strictFrom(layers: Layers, words: readonly string[], from: number): boolean {
  for (let k = from; k < ORDER_LAST_FIRST.length; k++) {
    const set = layers[ORDER_LAST_FIRST[k]!];
    if (set && summary(rulesFor(set, words)).firstStrict !== -1) return true;
  }
  return false;
}

/** The last rule stricter than allow that names these words with options anywhere (loose match). */
function looseVerdict(layers: Layers, words: readonly string[], subject: string): Verdict | null {
  if (!anyOption(words)) return null;
  for (let k = 0; k < ORDER_LAST_FIRST.length; k++) {
    const layer = ORDER_LAST_FIRST[k]!;
    const set = layers[layer];
    if (!set) continue;
    const list = rulesFor(set, words);
    // Below the first stricter rule, with none in the layers after, a match could only be an allow: no answer either way.
    const last = !strictFrom(layers, words, k + 1);
    const stop = last ? summary(list).firstStrict : 0;
    if (stop === -1) return null;
    for (let i = list.length - 1; i >= stop; i--) {
      const c = list[i]!;
      const rule = c.rule;
      if (rule.pattern === "*" || !looseMatch(rule.pattern, words)) continue;
      if (rule.action === "allow") return null;
      return { action: rule.action, subject, rule: c.refIn(layer), reason: `"${rule.pattern}" matches once options are left out` };
    }
    if (last) return null;
  }
  return null;
}

/**
 * Whether a rule found under another reading of a command may tighten what the command as written
 * matched: a person's rule written later than it wins, as last-match-wins says
 * (`{"shell_exec": {"rm *": "deny"}, "*": "allow"}` allows `rm --version`); an approval-made
 * allow never does.
 */
function mayOverride(layers: Layers, found: RuleRef | null, asWritten: RuleRef | null): boolean {
  if (!found || !asWritten || asWritten.origin === "approval") return true;
  return positionOf(layers, found) > positionOf(layers, asWritten);
}

/** Whether a pattern's leading words are these words, literally: `npx vitest *` names `npx vitest`. */
function namesWithProgram(pattern: string, words: readonly ShellWord[]): boolean {
  const parts = pattern.split(" ");
  return parts.length > words.length && words.every((w, i) => isLiteral(w) && parts[i] === w.text && !/[*?[\]{}\\]/.test(parts[i]!));
}

/** A rule's place in the concatenated layers (ORDER_LAST_FIRST, read backwards). */
function positionOf(layers: Layers, ref: RuleRef): number {
  const rank = ORDER_LAST_FIRST.length - 1 - ORDER_LAST_FIRST.indexOf(ref.layer);
  const index = layers[ref.layer]?.compiled.findIndex((c) => c.refIn(ref.layer) === ref) ?? -1;
  return rank * 2 ** 32 + index;
}

/** As written, by basename, without options before the subcommand, options anywhere; the stricter counts. */
function matchCommand(words: string[], layers: Layers, classified: Classified | null = null): Verdict {
  const subject = words.join(" ");
  let verdict = decideSubject(layers, TOOL, text(subject), subject);
  // Nothing is stricter than deny.
  if (verdict.action === "deny") return verdict;
  const asWritten = verdict.rule;
  const name = words[0] ?? "";
  const slash = name.lastIndexOf("/");
  const byName = slash >= 0 ? [name.slice(slash + 1), ...words.slice(1)] : words;
  // Every other reading starts with the name or its basename, unless the command has other names:
  // where no rule for those words is stricter, none can tighten (most commands).
  if (
    !mayTighten(layers, words, verdict.action) &&
    !mayBeAliased(name) &&
    (slash < 0 || (!mayTighten(layers, byName, verdict.action) && !mayBeAliased(byName[0]!)))
  )
    return verdict;
  const readings: string[][] = slash >= 0 ? [byName] : [];
  for (const r of readingsOf(byName, classified)) readings.push(r);
  // Each reading so far, then the words as written, without their leading options.
  const found = readings.length;
  for (let i = 0; i <= found; i++) for (const r of withoutLeadingOptions(i < found ? readings[i]! : words)) readings.push(r);
  for (const reading of readings) {
    // Only a rule that names a command and is stricter may tighten; most readings meet none.
    if (!mayTighten(layers, reading, verdict.action)) continue;
    const seen = reading.join(" ");
    const v = decideSubject(layers, TOOL, text(seen), subject);
    // A catch-all speaks of no command in particular; only a rule that names one may tighten.
    if (v.rule && v.rule.pattern !== "*" && isStricter(v.action, verdict.action) && mayOverride(layers, v.rule, asWritten))
      verdict = verdictOf(v.action, subject, v.rule, `seen as "${seen}": ${v.reason}`);
  }
  if (verdict.action !== "deny") {
    for (let i = -1; i < readings.length; i++) {
      const reading = i < 0 ? words : readings[i]!;
      if (!mayTighten(layers, reading, verdict.action)) continue;
      const loose = looseVerdict(layers, reading, subject);
      if (loose && isStricter(loose.action, verdict.action) && mayOverride(layers, loose.rule, asWritten)) verdict = loose;
    }
  }
  return verdict;
}

const NOTHING_WRITTEN: ReadonlySet<string> = new Set();

/** `<(cmd)` or `>(cmd)`. */
function isProcessSubstitution(raw: string): boolean {
  return raw.length >= 3 && (raw[0] === "<" || raw[0] === ">") && raw[1] === "(" && raw.endsWith(")");
}

interface PathOutcome {
  holds: string | undefined;
  strictest: Verdict | null;
  /** How many of the candidate directories it has been checked in. */
  covered: number;
}

class ShellJudge {
  readonly verdicts: Verdict[] = [];
  readonly dirs: ShellDirectories;
  critical: string | null;
  /** Absolute paths the line writes; the shared empty set until the first. */
  private written: ReadonlySet<string> = NOTHING_WRITTEN;
  /** Decisions by directory and path, for reads and for writes; made on first use, as most lines name no file. */
  private seenReads: Map<string, Map<string, Verdict>> | null = null;
  private seenWrites: Map<string, Map<string, Verdict>> | null = null;
  private outcomes: Map<string, PathOutcome> | null = null;
  private matched: Map<string, Verdict> | null = null;
  private absoluteReadDenies: readonly AbsoluteDeny[] | undefined;
  private outerDenyFolders: readonly string[] | null | undefined;
  private awayJudged = 0;
  /** What each wrapper of the line matched, for the commands it runs. */
  private wrappers: Map<AnalyzedCommand, Verdict> | null = null;
  private regions: readonly string[] | null | undefined;
  private away = true;
  private readonly fetches: boolean;

  constructor(
    private readonly ctx: DecideContext,
    private readonly analysis: ShellAnalysis,
  ) {
    this.dirs = new ShellDirectories(ctx.cwd, ctx.home, ctx.resolveRealPath);
    const line = lineCritical(analysis.source, analysis.commands);
    this.critical = line.forkBomb;
    this.fetches = line.fetches;
  }

  private pathsOf = (word: string): readonly string[] => {
    const file = knownPath({ text: word, raw: word, dynamic: word.includes("$"), glob: false }) ?? word;
    return this.dirs.unknown && !file.startsWith("/") ? [] : this.dirs.resolve(file);
  };

  /** The file checks of one word: every directory the line may be in, the stricter counts. */
  file(tool: "read_file" | "write_file", word: ShellWord, how: string): Verdict | null {
    if (tool === "write_file" && word.text.startsWith("/dev/") && HARMLESS_TARGETS.test(word.text)) return null;
    // `<(cmd)` and `>(cmd)` name a pipe to a command the analysis judges on its own.
    if (isProcessSubstitution(word.raw)) return null;
    const file = knownPath(word);
    if (file === null) return { action: "ask", subject: word.raw, rule: null, reason: `${how} ${word.raw}, a file only known when the shell runs` };
    if (file === "" || file.includes("\0")) return { action: "ask", subject: word.raw, rule: null, reason: `${how} an empty or unusable path` };
    if (namesProcessFiles(file))
      return {
        action: "deny",
        subject: file,
        rule: null,
        reason: `${how} ${file}, a process's own files (environment, memory, open files), which no command reads or writes`,
      };
    const relative = !file.startsWith("/") && !file.startsWith("~") && !file.startsWith("$HOME");
    if (relative && this.dirs.unknown) return { action: "ask", subject: file, rule: null, reason: `${how} ${file}, but ${this.dirs.unknown}` };
    const outcome = this.outcome(tool, file);
    if (outcome.holds) return verdictOf("deny", file, null, `${how} ${file}, a directory that holds the protected path ${outcome.holds}`);
    const v = outcome.strictest!;
    const out = verdictOf(v.action, file, v.rule, `${how} ${file}, checked as ${tool}: ${v.reason}`);
    if (v.steers) out.steers = v.steers;
    return out;
  }

  /**
   * What the directories the line may be in say about one path: the first of the strictest
   * decisions, or the protected path it holds. A `cd` only ever adds directories, so an answer
   * is kept and extended to the directories added since.
   */
  private outcome(tool: "read_file" | "write_file", file: string): PathOutcome {
    const key = (tool === "write_file" ? "w" : "r") + file;
    this.outcomes ??= new Map();
    let outcome = this.outcomes.get(key);
    if (!outcome) {
      outcome = { holds: undefined, strictest: null, covered: 0 };
      this.outcomes.set(key, outcome);
    }
    const candidates = this.dirs.candidates;
    const each = this.dirs.eachDirectory(file);
    const upTo = each ? candidates.length : 1;
    while (outcome.holds === undefined && outcome.covered < upTo) {
      const dir = candidates[outcome.covered++]!;
      const absolute = this.dirs.resolveIn(file, each ? dir : candidates[0]!);
      if (tool === "write_file") this.wrote(absolute);
      const holds = tool === "write_file" ? holdsProtected(absolute, this.ctx) : undefined;
      if (holds) {
        outcome.holds = holds;
        break;
      }
      const v = this.decided(tool, file, dir, absolute);
      if (!outcome.strictest || isStricter(v.action, outcome.strictest.action)) outcome.strictest = v;
    }
    return outcome;
  }

  private wrote(absolute: string): void {
    const written = this.written === NOTHING_WRITTEN ? new Set<string>() : (this.written as Set<string>);
    written.add(absolute);
    this.written = written;
  }

  /** One path's decision; a script names the same files again and again, so each is decided once. */
  private decided(tool: "read_file" | "write_file", file: string, dir: string, absolute: string): Verdict {
    const byDir = tool === "write_file" ? (this.seenWrites ??= new Map()) : (this.seenReads ??= new Map());
    let byFile = byDir.get(dir);
    if (!byFile) byDir.set(dir, (byFile = new Map()));
    let v = byFile.get(file);
    if (!v) {
      v = decideAbsolute(tool, absolute, this.ctx);
      // After `cd link` or through `dir/..`, the kernel resolves the path from where links point.
      if (file.includes("..") || dir !== this.ctx.cwd) v = physically(tool, file, dir, this.ctx, v);
      byFile.set(file, v);
    }
    return v;
  }

  command(cmd: AnalyzedCommand): Verdict {
    const words = cmd.words.map((w) => w.text);
    if (words.length === 0) return this.assignmentsOnly(cmd);
    let v = this.match(words, cmd.classified);
    if (cmd.wrapper) (this.wrappers ??= new Map()).set(cmd, v);
    if (cmd.outer) v = this.namedWithWrapper(cmd, cmd.outer, v);
    v.command = cmd.wrapper ? { words, wrapper: cmd.wrapper } : { words };
    this.critical ??= commandCritical(cmd, this.ctx.home, this.pathsOf, this.fetches);
    // `env -C DIR cmd`, `tar -C DIR`: what follows works in DIR.
    if (cmd.classified?.chdir) this.dirs.change("cd", [cmd.classified.chdir]);
    const allowed = v.action === "allow";
    v = this.understanding(cmd, v);
    v = this.projects(cmd, v);
    v = this.files(cmd, v);
    if (cmd.classified) this.dirs.change(cmd.program, cmd.classified.operands);
    if (allowed && v.action === "ask") v.pastRules = true;
    return v;
  }

  /**
   * A rule that names a wrapper with its program (`npx vitest *`, `sudo apt-get *`) is the
   * person's word for that program too, unless a rule written after it says otherwise.
   */
  private namedWithWrapper(cmd: AnalyzedCommand, outer: AnalyzedCommand, v: Verdict): Verdict {
    const by = this.wrappers?.get(outer);
    if (v.action === "allow" || !by?.rule || by.action !== "allow" || !outer.wrapper) return v;
    if (!namesWithProgram(by.rule.pattern, outer.words.slice(0, outer.wrapper.innerIndex + 1))) return v;
    if (v.rule && v.rule.pattern !== "*" && mayOverride(this.ctx.layers, v.rule, by.rule)) return v;
    return verdictOf("allow", v.subject, by.rule, `"${by.rule.pattern}" names ${cmd.program} with ${outer.program}: ${by.reason}`);
  }

  /** matchCommand, once per distinct command of the line: it depends only on the words (and the full names of abbreviated options). */
  private match(words: string[], classified: Classified | null): Verdict {
    // A line of one command has nothing to share; abbreviated long options are rare, and words
    // with a NUL byte would make keys ambiguous: these are matched afresh.
    if (this.analysis.commands.length < 2 || (classified && classified.canonical.size > 0) || words.some((w) => w.includes("\0"))) {
      return matchCommand(words, this.ctx.layers, classified);
    }
    const key = words.join("\0");
    this.matched ??= new Map();
    let v = this.matched.get(key);
    if (!v) {
      v = matchCommand(words, this.ctx.layers, classified);
      this.matched.set(key, v);
    }
    return verdictOf(v.action, v.subject, v.rule, v.reason);
  }

  private assignmentsOnly(cmd: AnalyzedCommand): Verdict {
    const v: Verdict = { action: "allow", subject: cmd.assignments.map((a) => `${a.name}=`).join(" "), rule: null, reason: "it only sets variables" };
    return this.files(cmd, v);
  }

  /**
   * `git log -p` and the like print what git holds: a file the rules deny to read_file, committed
   * once, among it. Refused, not asked: an approval of the command would not approve the file.
   */
  private history(cmd: AnalyzedCommand, v: Verdict): Verdict {
    const prints = printsFromHistory(cmd.words.map((w) => w.text));
    const held = prints ? this.ctx.deniedInHistory!(cmd.words.map((w) => (isLiteral(w) ? w.text : null))) : null;
    return held ? atLeast(v, "deny", `${prints}, which hold ${held}, denied to read_file`) : v;
  }

  /** An allow stands only when every word of the command is understood (docs/design.md, "Shell commands"). */
  private understanding(cmd: AnalyzedCommand, v: Verdict): Verdict {
    const head = cmd.words[0]!;
    if (!isLiteral(head)) return atLeast(v, "ask", `the command name "${head.raw}" is only known when the shell runs`);
    for (const a of cmd.assignments) {
      if (!isHarmlessAssignment(a.name, a.value)) v = atLeast(v, "ask", `it sets ${a.name} for the command, a variable that may choose what runs`);
    }
    if (cmd.opaque) v = atLeast(v, "ask", cmd.opaque);
    const credential = printsCredential(cmd.program, cmd.words);
    if (credential) v = atLeast(v, "ask", credential);
    if (cmd.program === "git" && showsSubmoduleFiles(cmd.words.map((w) => w.text)))
      v = atLeast(v, "ask", "--submodule=diff prints files from the submodules' histories, which are not checked for denied files");
    if (cmd.program === "git" && this.ctx.deniedInHistory) v = this.history(cmd, v);
    const c = cmd.classified;
    if (!c) return this.unknownProgram(cmd, v);
    if (c.unknown) v = atLeast(v, "ask", c.unknown);
    if (c.risk) v = atLeast(v, "ask", c.risk);
    const unseen = writesUnseen(
      c.name,
      cmd.words.map((w) => w.text),
    );
    if (unseen) v = atLeast(v, "ask", unseen);
    if (READS_COMMANDS.has(cmd.program) && (cmd.stdin !== null || cmd.reads.length > 0)) v = atLeast(v, "ask", `${cmd.program} runs the commands of its input`);
    if (SHELL_WITHOUT_COMMAND.has(cmd.program) && c.inner.length === 0 && c.scripts.length === 0)
      v = atLeast(v, "ask", `${cmd.program} with no command starts a shell`);
    if (PLUS_COMMANDS.has(cmd.program) && c.operands.some((w) => w.text.startsWith("+")))
      v = atLeast(v, "ask", `${cmd.program} runs the commands given with +`);
    if (
      (cmd.program === "test" || cmd.program === "[") &&
      cmd.words.some((w, i) => cmd.words[i - 1]?.text === "-v" && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(w.text))
    )
      v = atLeast(v, "ask", `${cmd.program} -v with a subscript evaluates it`);
    const arith = c.arith.find((w) => !this.numericExpression(w.text));
    if (arith) v = atLeast(v, "ask", `${c.name} evaluates "${arith.raw}", which can run commands through the values it names`);
    if (this.analysis.functions.includes(cmd.program) && !cmd.via)
      v = atLeast(v, "ask", `${cmd.program} is a function defined in this command line, not the program`);
    if (c.runsFile) {
      const file = knownPath(c.runsFile);
      const paths = file === null ? [] : this.dirs.resolve(file);
      if (paths.some((p) => this.written.has(p))) v = atLeast(v, "ask", `${cmd.program} runs ${c.runsFile.raw}, which this command line writes`);
    }
    for (const d of c.declared) {
      if (changesTheShell(d.name)) v = atLeast(v, "ask", `${c.name} sets ${d.name}, which changes what the shell runs`);
      else if (d.exported && !isHarmlessVariable(d.name)) v = atLeast(v, "ask", `${c.name} exports ${d.name}, a variable that may choose what runs`);
    }
    const rest = c.spec?.operands.rest;
    if (cmd.unknownArgs && (rest === "read" || rest === "write"))
      v = atLeast(v, "ask", `${cmd.via ?? "xargs"} gives ${cmd.program} arguments that cannot be checked`);
    // Words xargs appends may be options too; `find -exec` appends only the paths it found.
    else if (cmd.unknownArgs && !cmd.via?.startsWith("find ") && !takesAnyWords(c.spec))
      v = atLeast(v, "ask", `${cmd.via ?? "xargs"} gives ${cmd.program} words that may be options, which the gate cannot check`);
    return v;
  }

  /** Project files the program runs: in another directory, or written earlier in this line, they ask. */
  private projects(cmd: AnalyzedCommand, v: Verdict): Verdict {
    const c = cmd.classified;
    if (!c) return v;
    for (const dir of c.projects) {
      const file = knownPath(dir);
      const write = file === null ? null : this.file("write_file", dir, `${c.name} works in`);
      if (write?.action === "deny" && !write.rule) return atLeast(v, "deny", write.reason);
      const outside = file === null || this.dirs.resolve(file).some((p) => !isInside(p, normalRoot(this.ctx.cwd)));
      if (outside) return atLeast(v, "ask", `${c.name} runs the project files of ${dir.raw}, outside the work directory`);
    }
    const names = PROJECT_FILES.get(cmd.program);
    if (!names || this.written.size === 0) return v;
    const bases = c.projects.length > 0 ? c.projects.flatMap((d) => this.dirs.resolve(d.text)) : this.dirs.candidates;
    const rewritten = firstWritten(bases, names, this.written);
    return rewritten ? atLeast(v, "ask", `${c.name} runs ${rewritten}, which this command line writes`) : v;
  }

  /** A program the gate has no model of: only a rule that names it may allow it, and never with a program's name among its words. */
  private unknownProgram(cmd: AnalyzedCommand, v: Verdict): Verdict {
    if (v.action === "allow" && (!v.rule || v.rule.pattern === "*" || v.rule.pattern === "* *")) {
      v = atLeast(v, "ask", `${cmd.program} is not a program the gate knows, so only a rule naming it may allow it`);
    }

    for (const word of cmd.words.slice(1)) {
      const tokens = word.text
        .split(/[\s;&|()'"`]+/)
        .filter(Boolean)
        .slice(0, 64);
      for (let i = 0; i < tokens.length; i++) {
        const name = programName(tokens[i]!);
        if (!name || name.startsWith("-")) continue;
        if ((runsCode(name) && name !== ".") || RUNS_PROGRAMS.has(name))
          return atLeast(v, "ask", `${cmd.program} is given "${name}", a program that runs code, which ${cmd.program} may run`);
        const reading = [name, ...tokens.slice(i + 1)].join(" ");
        const named = decideSubject(this.ctx.layers, TOOL, text(reading), reading);
        if (named.rule && named.rule.pattern !== "*" && isStricter(named.action, "allow")) {
          return atLeast(
            v,
            "ask",
            `${cmd.program} is given "${reading}", which the rules ${named.action === "deny" ? "deny" : "ask about"} as a command and ${cmd.program} may run`,
          );
        }
      }
    }
    return v;
  }

  /** Every file the command reads, writes or names, with its redirections. */
  private files(cmd: AnalyzedCommand, v: Verdict): Verdict {
    const c = cmd.classified;
    const unknown = cmd.words.length > 0 && !c;
    for (const w of cmd.writes) v = folded(v, this.file("write_file", w, "it writes"));
    for (const w of cmd.reads) v = folded(v, this.file("read_file", w, "it reads"));
    if (c) {
      for (const w of c.reads) v = folded(v, this.file("read_file", w, `${c.name} reads`));
      for (const w of c.reads) v = folded(v, this.insideDenied(w, c.name));
      for (const w of c.reads) v = folded(v, this.insideFloor(w, c.name));
      for (const w of c.writes) v = folded(v, this.file("write_file", w, `${c.name} writes`));
      for (const w of writtenInto(cmd)) v = folded(v, this.steering(w, c.name));
      // A folder named by its source (`cp -r x/.github .`) is filled as surely as one named as the target.
      if (FILLS_FOLDER.has(cmd.program)) for (const w of [...c.writes, ...writtenInto(cmd)]) v = folded(v, this.holder(w, c.name));
      for (const w of c.mayBeFiles) v = folded(v, this.mayBeFile(w, c.name));
    }
    const named = unknown ? cmd.words.slice(1).flatMap(fileLikeParts) : (c?.paths ?? []);
    for (const word of named) v = this.named(word, cmd.program, v, unknown);
    // An unknown program's words may be files it writes: outside the work directory they ask.
    if (unknown) for (const word of named) if (knownPath(word) !== null) v = folded(v, this.mayBeFile(word, cmd.program));
    return v;
  }

  /** A path a command writes under a name its words do not spell out: only a file that steers a program counts. */
  private steering(word: ShellWord, program: string): Verdict | null {
    const v = this.file("write_file", word, `${program} may write`);
    return v?.steers ? v : null;
  }

  /** A folder the command fills, named like one that holds files that steer programs (`mv x .config` plants `.config/git/config`). */
  private holder(word: ShellWord, program: string): Verdict | null {
    const file = knownPath(word);
    if (file === null || file === "" || file.includes("\0")) return null;
    for (const absolute of this.pathsOf(file)) {
      const steering = steeringHolderOf(absolute, { filled: true });
      if (!steering) continue;
      const v = this.file("write_file", word, `${program} writes`);
      if (v?.action === "deny" || (v?.action === "allow" && v.rule && ruleNames(v.rule.pattern, steering))) return null;
      return { action: "ask", subject: file, rule: null, reason: `${program} writes ${file}: ${steeringReason(absolute, steering)}`, steers: steering };
    }
    return null;
  }

  /**
   * A word that may be a file the program reads and writes (an unknown option's value): it asks
   * when it leads outside the work directory, a rule denies it, or it is only known at run time;
   * a floor (protected paths, a process's files) denies. Inside the work directory it is text.
   */
  private mayBeFile(word: ShellWord, program: string): Verdict | null {
    const how = `${program} may be given the file`;
    if (knownPath(word) === null) return this.file("write_file", word, how);
    const write = this.file("write_file", word, how);
    const read = this.file("read_file", word, how);
    for (const v of [write, read]) if (v?.action === "deny" && !v.rule) return v;
    const outside = this.dirs.candidates.length > 0 && this.pathsOf(word.text).some((p) => !isInside(p, normalRoot(this.ctx.cwd)));
    for (const v of [write, read]) {
      // A word that may be text is not taken for a write to a file that steers a program, unless it leads outside.
      if (v && v.action !== "allow" && (!v.steers || outside) && (outside || v.action === "deny" || !v.rule))
        return { ...v, action: "ask", reason: `${v.reason} (the gate cannot tell this word from text, so it asks)` };
    }
    return null;
  }

  /** A directory given to a reader (`grep -r`, `diff -r`) under which a rule denies reading. */
  private insideDenied(word: ShellWord, program: string): Verdict | null {
    if (!this.readDenyByPath()) return null;
    const file = knownPath(word);
    if (file === null || file === "" || file.includes("\0") || this.noDenyInside(file)) return null;
    const v = this.file("read_file", { ...word, text: insideOf(file) }, `${program} reads`);
    return v?.action === "deny" && v.rule?.pattern.startsWith("/")
      ? { ...v, action: "ask", reason: `${program} may read inside ${file}, where a rule denies reading: ${v.reason}` }
      : null;
  }

  /**
   * A directory given to a reader that holds the system's own secrets (denied), or every process's
   * files (`/`, `/proc`: the worker's environment among them, asked).
   */
  private insideFloor(word: ShellWord, program: string): Verdict | null {
    const file = knownPath(word);
    if (file === null || file === "" || file.includes("\0") || (this.dirs.unknown && !file.startsWith("/"))) return null;
    const dirs = this.dirs.resolve(file);
    const secret = this.holdsSecret(dirs);
    if (secret) return { action: "deny", subject: file, rule: null, reason: `${program} may read inside ${file}, which holds the protected path ${secret}` };
    const holds = dirs.find((p) => p === "/" || p === "/proc");
    if (holds) return { action: "ask", subject: file, rule: null, reason: `${program} may read inside ${holds}, which holds the files of every process` };
    // `grep -r KEY ~` reaches ~/.ssh, which a rule with an absolute pattern denies reading.
    const denied = this.deniedUnder(dirs, file);
    return denied
      ? { action: "ask", subject: file, rule: null, reason: `${program} may read inside ${file}, which holds ${denied}, denied to read_file` }
      : null;
  }

  /** The protected path (the system's own secrets) that one of these directories holds, `/` included, if any. */
  private holdsSecret(dirs: readonly string[]): string | undefined {
    for (const dir of dirs) {
      const held = this.ctx.protectedPaths?.find((p) => p !== dir && isInside(p, dir));
      if (held) return held;
    }
    return undefined;
  }

  /** The first absolute read_file deny pattern whose files lie under one of these directories. */
  private deniedUnder(dirs: readonly string[], file: string): string | null {
    if (this.staysAway(file)) return null;
    for (const { pattern, folder } of this.readDenies()) {
      if (folder === null || dirs.some((d) => inFolder(folder, d))) return pattern;
    }
    return null;
  }

  /** The read_file deny rules with absolute patterns, last layer first. */
  private readDenies(): readonly AbsoluteDeny[] {
    this.absoluteReadDenies ??= ORDER_LAST_FIRST.flatMap((layer) => this.ctx.layers[layer]?.absoluteDenies("read_file") ?? []);
    return this.absoluteReadDenies;
  }

  /**
   * Whether no absolute read deny can match a file inside `file`, from any directory the line may
   * be in: most words lie far from every denied folder, and need no full check. Where links are
   * followed the full check is always made.
   */
  private noDenyInside(file: string): boolean {
    if (this.ctx.resolveRealPath || (this.dirs.unknown && this.dirs.eachDirectory(file))) return false;
    const folders = this.denyFolders();
    if (folders === null) return false;
    if (this.staysAway(file)) return true;
    // A file inside `file` is inside a folder exactly when `file` is that folder or inside it.
    const regions = this.denyRegions()!;
    return this.dirs.resolve(file).every((p) => !regions.some((r) => inFolder(p, r)) || !folders.some((f) => inFolder(p, f)));
  }

  /**
   * Whether a relative path without `..` names, from every directory the line may be in, only
   * places that neither hold nor lie in a folder of the absolute read denies: it stays inside
   * its directory, and none of those directories is on the way to or inside such a folder.
   */
  private staysAway(file: string): boolean {
    if (!this.dirs.eachDirectory(file) || file.startsWith("$") || /(^|\/)\.\.(\/|$)/.test(file)) return false;
    const folders = this.denyFolders();
    if (folders === null) return false;
    // Directories are only ever added to the candidates, so each is judged once.
    const candidates = this.dirs.candidates;
    for (; this.awayJudged < candidates.length && this.away; this.awayJudged++) {
      const d = candidates[this.awayJudged]!;
      this.away = apart(d, this.denyRegions()!) || folders.every((f) => apart(d, [f]));
    }
    return this.away;
  }

  /** The outermost of the places the absolute read denies lie in (`/home/u/.ssh` of `/home/u/.ssh/*`); null if one is unbounded. */
  private denyFolders(): readonly string[] | null {
    if (this.outerDenyFolders === undefined) {
      const all = this.readDenies().map((d) => d.folder);
      this.outerDenyFolders = all.includes(null) ? null : outermost(all as string[]);
    }
    return this.outerDenyFolders;
  }

  /** Where the deny folders lie, coarsely: the outermost of their parents (`/home/u`), tried first. */
  private denyRegions(): readonly string[] | null {
    if (this.regions === undefined) {
      const folders = this.denyFolders();
      this.regions = folders && outermost(folders.map((f) => f.slice(0, f.lastIndexOf("/")) || "/"));
    }
    return this.regions;
  }

  /** Whether a rule denies reading by an absolute path: without one, no directory has a denied inside. */
  private readDenyByPath(): boolean {
    return this.readDenies().length > 0;
  }

  /** A path a command names without reading it (ls, stat, an unknown program's words): a denied one asks. */
  private named(word: ShellWord, program: string, v: Verdict, mayWrite: boolean): Verdict {
    if (!isLiteral(word) && knownPath(word) === null) return v;
    const read = this.file("read_file", word, `${program} is given`);
    if (read?.action === "deny") v = atLeast(v, "ask", read.reason, read.rule);
    const inside = this.insideDenied(word, program);
    if (inside) v = atLeast(v, "ask", inside.reason, inside.rule);
    if (!mayWrite) return v;
    const write = this.file("write_file", word, `${program} is given`);
    if (write?.action === "deny" && !write.rule) v = atLeast(v, "ask", write.reason);
    return v;
  }

  loose(): void {
    const { loose, assignments } = this.analysis;
    if (loose.writes.length > 0 && loose.writes.some((w) => this.pathsOf(w.text).some(writesSystemFile))) this.critical ??= "it writes a system account file";
    for (const w of loose.writes) this.push(this.file("write_file", w, "a redirection writes"));
    for (const w of loose.reads) this.push(this.file("read_file", w, "a redirection reads"));
    for (const a of assignments) {
      if (changesTheShell(a.name))
        this.push({ action: "ask", subject: `${a.name}=`, rule: null, reason: `it sets ${a.name}, which changes what the shell runs` });
    }
  }

  constructs(): void {
    const { unmodelled, arithmetic, functions } = this.analysis;
    for (const reason of unmodelled) this.push({ action: "ask", subject: reason, rule: null, reason });
    const unsafe = arithmetic.length > 0 ? arithmetic.find((name) => !this.numeric(name)) : undefined;
    if (unsafe)
      this.push({
        action: "ask",
        subject: unsafe,
        rule: null,
        reason: `arithmetic evaluates ${unsafe === "$(" ? "the output of a substitution" : `the value of ${unsafe}`} as an expression, which can run commands`,
      });
    for (const name of functions) {
      if (isKnownProgram(name))
        this.push({ action: "ask", subject: `${name}()`, rule: null, reason: `it defines a function ${name} that hides the program of that name` });
    }
  }

  /** An arithmetic expression of numbers, operators and variables this line sets to numbers. */
  private numericExpression(text: string): boolean {
    if (/[[$`'"\\]/.test(text)) return false;
    return (text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).every((name) => this.numeric(name));
  }

  /** A variable arithmetic may read: one this line sets, and only to numbers. */
  private numeric(name: string): boolean {
    if (name.startsWith("$")) return false;
    const sets = this.analysis.assignments.filter((a) => a.name === name);
    const byCommands = this.analysis.commands.some(
      (c) =>
        c.classified &&
        (c.classified.declared.some((d) => d.name === name) ||
          c.words.some((w, i) => i > 0 && w.text === name && /^(read|mapfile|readarray|printf|getopts|wait)$/.test(c.program))),
    );
    return !byCommands && sets.length > 0 && sets.every((a) => a.value !== null && !a.value.dynamic && /^-?\d+$/.test(a.value.text));
  }

  push(v: Verdict | null): void {
    if (v) this.verdicts.push(v);
  }
}

/** A word of an unknown program that may name a file: the word, an option's `=value`, what follows `@`. */
function fileLikeParts(word: ShellWord): ShellWord[] {
  const t = word.text;
  if (t.startsWith("-")) {
    const eq = t.indexOf("=");
    return eq > 0 ? [{ ...word, text: t.slice(eq + 1) }] : [];
  }
  const at = t.lastIndexOf("@");
  return at >= 0 ? [word, { ...word, text: t.slice(at + 1) }] : [word];
}

/**
 * The first `base/name`, bases before names, that the line writes. Looked up from the written
 * paths, which are few, rather than by building every pair.
 */
function firstWritten(bases: readonly string[], names: readonly string[], written: ReadonlySet<string>): string | null {
  let best: [number, number] | null = null;
  for (const path of written) {
    names.forEach((name, n) => {
      if (path.length <= name.length || !path.endsWith(name) || path[path.length - name.length - 1] !== "/") return;
      const b = bases.indexOf(path.slice(0, path.length - name.length - 1));
      if (b !== -1 && (!best || b < best[0] || (b === best[0] && n < best[1]))) best = [b, n];
    });
  }
  return best ? `${bases[best[0]]}/${names[best[1]]}` : null;
}

/** One verdict per sub-command (with its redirections folded in) and per loose file touched. */
export function decideShell(command: string, ctx: DecideContext): ShellDecision {
  const analysis = analyzeShell(command);
  const judge = new ShellJudge(ctx, analysis);
  for (const cmd of analysis.commands) judge.push(judge.command(cmd));
  judge.loose();
  judge.constructs();
  const unknown = analysis.tooLarge ?? (analysis.parseError ? "the command does not parse cleanly" : null);
  if (unknown) {
    const guard = ctx.protectedPaths?.find((p) => command.includes(p));
    judge.push({
      action: guard ? "deny" : "ask",
      subject: command,
      rule: null,
      reason: `${unknown}, so what it runs cannot be known${guard ? `, and it names the protected path ${guard}` : ""}`,
    });
  }
  if (judge.verdicts.length === 0) {
    const whole = command.trim();
    judge.push(decideSubject(ctx.layers, TOOL, text(whole), whole));
  }
  return { verdicts: judge.verdicts, analysis, critical: judge.critical };
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

/** A file inside a directory, any one: what a reader given the directory may reach. */
const insideOf = (dir: string) => `${dir.replace(/\/+$/, "")}/gatehouse-any-file`;

/** The folders not inside another of them. */
function outermost(folders: readonly string[]): string[] {
  const sorted = [...new Set(folders)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const f of sorted) if (!kept.some((k) => inFolder(f, k))) kept.push(f);
  return kept;
}

/** Whether a directory is neither inside nor on the way to any of these folders. */
const apart = (dir: string, folders: readonly string[]) => folders.every((f) => !inFolder(dir, f) && !inFolder(f, dir));

/** `--submodule=diff` shows the submodules' changed files, not only their commits. */
function showsSubmoduleFiles(words: readonly string[]): boolean {
  return words.includes("--submodule=diff");
}
