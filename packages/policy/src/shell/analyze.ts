import type { Classified } from "./classify.js";
import { extractCommands, type Assignment, type FileRedirects, type SubCommand } from "./extract.js";
import { tooDeepToAnalyse, tooLargeToParse } from "./limits.js";
import { parseShell } from "./parser.js";
import { classifyCommand, classifyModule } from "./programs/index.js";
import { SHELLS } from "./programs/runners.js";
import { joinContinuations, isLiteral, type ShellWord } from "./words.js";

export const MAX_SCRIPT_DEPTH = 8;
const HEREDOC_SENTINEL = "gatehouse-heredoc-body";

/**
 * A heredoc body as a plain `<<` heredoc tree-sitter parses fully: backtick substitutions become
 * `$( )` (inside them `\\`, `\$` and `` \` `` lose their backslash), tabs a `<<-` strips are gone.
 */
export function heredocScript(body: string): string {
  let out = "";
  let inside = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\" && i + 1 < body.length) {
      const next = body[++i]!;
      out += inside && "\\$`".includes(next) ? next : c + next;
    } else if (c === "`") {
      // `$` before a backtick is a literal dollar; escape it so it does not form `$$(`.
      if (!inside && out.endsWith("$") && !out.endsWith("\\$")) out = `${out.slice(0, -1)}\\$`;
      out += inside ? ")" : "$(";
      inside = !inside;
    } else out += c;
  }
  if (inside) out += ")";
  const delimiter = `GATEHOUSE_BODY_${body.length}_END`;
  return `${HEREDOC_SENTINEL} <<${delimiter}\n${out.replace(/^\t+/gm, "")}\n${delimiter}\n`;
}

export interface AnalyzedCommand extends SubCommand {
  depth: number;
  /** The program's basename (`/bin/rm` -> `rm`). */
  program: string;
  /** Its words in their places; null when the name is not literal or the program is not known. */
  classified: Classified | null;
  /** Set when this command is a wrapper: where its inner command starts in `words`. */
  wrapper: { innerIndex: number; privileged: boolean } | null;
  /** The wrapper this command was reached through (`vitest run` of `npx vitest run`), or null. */
  outer: AnalyzedCommand | null;
  /** Receives arguments that are not written here (`xargs CMD`). */
  unknownArgs: boolean;
  /** Why what this command runs cannot be known (`sh -c "$S"`, `eval $X`, too deep), or null. */
  opaque: string | null;
}

export interface ShellAnalysis {
  commands: AnalyzedCommand[];
  assignments: Assignment[];
  loose: FileRedirects;
  /** Shell constructs the analysis does not model, each with why. */
  unmodelled: string[];
  /** Names of shell functions the line defines. */
  functions: string[];
  /** Variables read in arithmetic, where the shell evaluates their values as expressions. */
  arithmetic: string[];
  parseError: boolean;
  /** Why (a part of) the script was too large or too deep to analyse, or null. */
  tooLarge: string | null;
  /** The text analysed. */
  source: string;
}

export function programName(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash === -1 ? word : word.slice(slash + 1);
}

class Analyzer {
  readonly out: ShellAnalysis = {
    commands: [],
    assignments: [],
    loose: { writes: [], reads: [], stdin: null },
    unmodelled: [],
    functions: [],
    arithmetic: [],
    parseError: false,
    tooLarge: null,
    source: "",
  };

  script(text: string, depth: number, via: string | null, heredoc = false): void {
    const source = joinContinuations(text);
    // The line's own lists take what the script adds (of its loose redirections, only the files); its commands are analysed below.
    const { assignments, unmodelled, functions, arithmetic } = this.out;
    const loose = { writes: this.out.loose.writes, reads: this.out.loose.reads, stdin: null };
    const into = { commands: [], heredocs: [], parseError: false, assignments, loose, unmodelled, functions, arithmetic };
    const large = tooLargeToParse(source);
    const tree = large === null ? parseShell(source) : null;
    const deep = tree && tooDeepToAnalyse(tree.depth);
    if (!tree || deep) {
      this.out.tooLarge ??= large ?? deep;
      return;
    }
    const ex = extractCommands(tree, source, heredoc, into);
    this.out.parseError ||= ex.parseError;
    for (const cmd of ex.commands) {
      if (heredoc && cmd.words[0]?.raw === HEREDOC_SENTINEL) continue;
      if (via !== null) cmd.via = via;
      this.command(cmd, depth, false);
    }
    for (const body of ex.heredocs) {
      if (depth + 1 <= MAX_SCRIPT_DEPTH) this.script(heredocScript(body), depth + 1, via ?? "heredoc", true);
      else this.out.parseError = true;
    }
  }

  private command(sub: SubCommand, depth: number, unknownArgs: boolean, outer: AnalyzedCommand | null = null): void {
    // `! cmd` and `{ cmd` where tree-sitter left the keyword as a word (`time { rm x; }`, `! ! rm x`).
    if (sub.words.length > 1 && (sub.words[0]!.raw === "!" || sub.words[0]!.raw === "{")) {
      while (sub.words.length > 1 && (sub.words[0]!.raw === "!" || sub.words[0]!.raw === "{")) sub.words = sub.words.slice(1);
      // After the keyword, NAME=value words are assignments again, as they are at the start of a command.
      while (sub.words.length > 1 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(sub.words[0]!.raw)) {
        const [name] = sub.words[0]!.text.split("=");
        sub.assignments = [...sub.assignments, { name: name!, value: null }];
        sub.words = sub.words.slice(1);
      }
    }
    const head = sub.words[0];
    const program = head ? programName(head.text) : "";
    const classified = head && isLiteral(head) ? classifyCommand(sub.words, program) : null;
    // Parsers disagree on what `coproc W1 W2` names (W1 a coprocess name, or the command): not modelled.
    if (program === "coproc" && sub.words.length > 2 && sub.words[2]?.raw !== "{") this.out.parseError = true;
    // Made whole rather than grown from the sub-command: objects of one shape are read faster.
    const cmd: AnalyzedCommand = {
      words: sub.words,
      assignments: sub.assignments,
      writes: sub.writes,
      reads: sub.reads,
      stdin: sub.stdin,
      via: sub.via,
      depth,
      program,
      classified,
      wrapper: null,
      outer,
      unknownArgs,
      opaque: null,
    };
    if (sub.stdinText) cmd.stdinText = sub.stdinText;
    this.out.commands.push(cmd);
    if (!classified) return;
    for (const inner of classified.inner) this.inner(cmd, classified, inner.start, inner.end, inner.via);
    for (const script of classified.scripts) this.nested(cmd, script, depth);
    // A shell fed a script it can read (`bash <<< 'cmd'`, a quoted heredoc): that script is judged too.
    if (cmd.stdinText && SHELLS.has(program) && classified.risk && classified.operands.length === 0) this.nested(cmd, [cmd.stdinText], depth);
  }

  private inner(cmd: AnalyzedCommand, classified: Classified, start: number, end: number, via: string): void {
    const words = cmd.words.slice(start, end);
    if (words.length === 0) return;
    // Any other module is judged as a program of its name (pip, pytest; unknown ones ask).
    if (via.endsWith(" -m") && this.module(classified, words)) return;
    cmd.wrapper ??= { innerIndex: start, privileged: classified.spec?.privileged ?? false };
    const assignments = classified.assignments.map((name) => ({ name, value: null }));
    const inner: SubCommand = { words, assignments, writes: [], reads: [], stdin: cmd.stdin, via };
    if (cmd.stdinText) inner.stdinText = cmd.stdinText;
    const adds = cmd.unknownArgs || (classified.spec?.addsArguments ?? false) || via.startsWith("find ");
    this.command(inner, cmd.depth, adds, cmd);
  }

  /** `python -m MODULE` of the standard library is part of the interpreter: its words are the interpreter's. */
  private module(classified: Classified, words: ShellWord[]): boolean {
    const module = classifyModule(words, words[0]!.text);
    if (!module) return false;
    classified.reads.push(...module.reads);
    classified.writes.push(...module.writes);
    classified.paths.push(...module.paths);
    classified.unknown ??= module.unknown;
    classified.risk ??= module.risk && `${classified.name} -m ${module.risk}`;
    return true;
  }

  private nested(cmd: AnalyzedCommand, script: ShellWord[], depth: number): void {
    const via = cmd.classified!.name;
    if (cmd.unknownArgs && script.some((w) => w.text.includes("{}"))) cmd.opaque ??= `${via} runs a script built from the input of ${cmd.via ?? "xargs"}`;
    else if (script.some((w) => w.dynamic)) cmd.opaque ??= `${via} runs a script that is only known when the shell runs`;
    else if (depth + 1 > MAX_SCRIPT_DEPTH) cmd.opaque ??= `${via} nests scripts deeper than ${MAX_SCRIPT_DEPTH} levels`;
    else this.script(script.map((w) => w.text).join(" "), depth + 1, via);
  }
}

/** Every command a shell string would run, wrappers and nested scripts included. */
export function analyzeShell(text: string): ShellAnalysis {
  const analyzer = new Analyzer();
  analyzer.out.source = text;
  try {
    analyzer.script(text, 0, null);
  } catch (err) {
    // The bounds in limits.ts keep the stack from running out; should one not, the command asks.
    if (!(err instanceof RangeError)) throw err;
    return { ...new Analyzer().out, source: text, tooLarge: "the command is too complex for the gate to analyse" };
  }
  return analyzer.out;
}
