import { extractCommands, type Assignment, type FileRedirects, type SubCommand } from "./extract.js";
import { withShellTree } from "./parser.js";
import { joinContinuations, type ShellWord } from "./words.js";
import { unwrap, wrapperAssignments } from "./wrappers.js";

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
  /** Set when this command is a wrapper: where its inner command starts in `words`. */
  wrapper: { innerIndex: number; privileged: boolean } | null;
  /** Receives arguments that are not written here (`xargs CMD`). */
  unknownArgs: boolean;
  /** Why what this command runs cannot be known (`sh -c "$S"`, `eval $X`, too deep), or null. */
  opaque: string | null;
}

export interface ShellAnalysis {
  commands: AnalyzedCommand[];
  assignments: Assignment[];
  loose: FileRedirects;
  parseError: boolean;
}

function innerWords(words: ShellWord[], start: number, via: string): ShellWord[] {
  if (!via.startsWith("find ")) return words.slice(start);
  const end = words.findIndex((w, i) => i >= start && (w.text === ";" || w.text === "+"));
  return words.slice(start, end === -1 ? words.length : end);
}

class Analyzer {
  readonly out: ShellAnalysis = { commands: [], assignments: [], loose: { writes: [], reads: [], stdin: null }, parseError: false };

  script(text: string, depth: number, via: string | null, heredoc = false): void {
    const source = joinContinuations(text);
    const ex = withShellTree(source, (root) => extractCommands(root, source, heredoc));
    this.out.parseError ||= ex.parseError;
    this.out.assignments.push(...ex.assignments);
    this.out.loose.writes.push(...ex.loose.writes);
    this.out.loose.reads.push(...ex.loose.reads);
    for (const cmd of ex.commands) {
      if (!heredoc || cmd.words[0]?.raw !== HEREDOC_SENTINEL) this.command({ ...cmd, via: via ?? cmd.via }, depth, false);
    }
    for (const body of ex.heredocs) {
      if (depth + 1 <= MAX_SCRIPT_DEPTH) this.script(heredocScript(body), depth + 1, via ?? "heredoc", true);
      else this.out.parseError = true;
    }
  }

  private command(sub: SubCommand, depth: number, unknownArgs: boolean): void {
    const cmd: AnalyzedCommand = { ...sub, depth, wrapper: null, unknownArgs, opaque: null };
    this.out.commands.push(cmd);
    for (const wrapped of unwrap(cmd.words)) {
      if (wrapped.kind === "command") {
        cmd.wrapper = { innerIndex: wrapped.innerIndex, privileged: wrapped.privileged };
        const words = innerWords(cmd.words, wrapped.innerIndex, wrapped.via);
        if (words.length === 0) continue;
        const assignments = wrapperAssignments(cmd.words, wrapped.innerIndex).map((name) => ({ name, value: null }));
        const inner: SubCommand = { words, assignments, writes: [], reads: [], stdin: cmd.stdin, via: wrapped.via };
        this.command(inner, depth, wrapped.unknownArgs);
      } else if (wrapped.script.some((w) => w.dynamic)) {
        cmd.opaque = `${wrapped.via} runs a script that is only known when the shell runs`;
      } else if (depth + 1 > MAX_SCRIPT_DEPTH) {
        cmd.opaque = `${wrapped.via} nests scripts deeper than ${MAX_SCRIPT_DEPTH} levels`;
      } else {
        this.script(wrapped.script.map((w) => w.text).join(" "), depth + 1, wrapped.via);
      }
    }
  }
}

/** Every command a shell string would run, wrappers and nested scripts included. */
export function analyzeShell(text: string): ShellAnalysis {
  const analyzer = new Analyzer();
  analyzer.script(text, 0, null);
  return analyzer.out;
}
