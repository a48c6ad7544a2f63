import type { ShellTree, SyntaxNode } from "./parser.js";
import { arithmeticNames, constructOf, expansionArithmetic, expansionAssignment, riskyExpansion, type Construct } from "./constructs.js";
import { literalWord, resolveWord, type ShellWord } from "./words.js";

export type StdinSource = "pipe" | "heredoc" | "herestring";

export interface Assignment {
  name: string;
  value: ShellWord | null;
}

/** Redirections that touch files: output targets (written) and input targets (read). */
export interface FileRedirects {
  writes: ShellWord[];
  reads: ShellWord[];
  stdin: StdinSource | null;
  /** What a here-string or a heredoc feeds, when it is known before the shell runs. */
  stdinText?: ShellWord;
}

/** One simple command found anywhere in a script. */
export interface SubCommand extends FileRedirects {
  words: ShellWord[];
  assignments: Assignment[];
  /** How it was reached when not written at top level: "sudo", "bash -c", "eval", "find -exec", ... */
  via: string | null;
}

/** Everything a script would run or touch, before wrappers are looked into. */
export interface Extraction {
  commands: SubCommand[];
  /** Assignments that stand alone (`PATH=/tmp; ls`): they change what later commands run. */
  assignments: Assignment[];
  /** Redirections on compound statements (`{ ...; } > file`). */
  loose: FileRedirects;
  /** Bodies of unquoted heredocs: the shell expands substitutions in them. */
  heredocs: string[];
  /** Constructs the analysis does not model, each with why (docs/design.md, "Shell commands": they ask). */
  unmodelled: string[];
  /** Names of the functions the script defines. */
  functions: string[];
  /** Variables read in arithmetic (`$(( x ))`, `(( x ))`, `[[ $x -eq 1 ]]`, `${a[$i]}`). */
  arithmetic: string[];
  parseError: boolean;
}

const NO_REDIRECTS: FileRedirects = { writes: [], reads: [], stdin: null };
const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const READ_OPS = new Set(["<", "<>"]);
const COMMAND_NODES = new Set(["command", "declaration_command", "unset_command"]);
const RESERVED = new Set(["{", "}", "do", "done", "then", "fi", "else", "elif", "esac", "in", "!", "[[", "]]", "function", "select", "until"]);
const LEAVES = new Set(["word", "number", "raw_string", "ansi_c_string", "comment", "file_descriptor"]);

/** Collects a redirection's files; false when tree-sitter gave it more than one target word. */
function redirectOf(node: SyntaxNode, into: FileRedirects): boolean {
  if (node.type === "heredoc_redirect") {
    into.stdin = "heredoc";
    const start = node.namedChildren.find((c) => c?.type === "heredoc_start")?.text ?? "";
    const body = node.namedChildren.find((c) => c?.type === "heredoc_body")?.text ?? "";
    if (/['"\\]/.test(start) || !/[$`\\]/.test(body)) into.stdinText = literalWord(body);
  } else if (node.type === "herestring_redirect") {
    into.stdin = "herestring";
    const word = node.namedChildren.find((c) => c !== null && c.type !== "file_descriptor");
    if (word) into.stdinText = resolveWord(word);
  }
  if (node.type !== "file_redirect") return true;
  const op = node.children.find((c) => c !== null && !c.isNamed)?.text ?? "";
  const targets = node.childrenForFieldName("destination").filter((d): d is SyntaxNode => d !== null);
  for (const target of targets) {
    const word = resolveWord(target);
    const fdCopy = op === ">&" || op === "<&";
    if (fdCopy && (/^\d+-?$/.test(word.text) || word.text === "-")) continue;
    if (WRITE_OPS.has(op) || op === ">&") into.writes.push(word);
    if (READ_OPS.has(op)) {
      into.reads.push(word);
      into.stdin ??= null;
    }
  }
  return targets.length <= 1;
}

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\[.*\])?$/s;

function invalidAssignment(node: SyntaxNode): ShellWord {
  const word = resolveWord(node);
  return { ...word, glob: word.glob || /[*?[]/.test(word.raw.split("=")[0] ?? "") };
}

function assignmentOf(node: SyntaxNode): Assignment {
  const name = node.childForFieldName("name")?.text ?? node.text.split("=")[0] ?? "";
  const value = node.childForFieldName("value");
  return { name: name.replace(/\+$/, ""), value: value ? resolveWord(value) : null };
}

function hasBacktickOrNewline(text: string): boolean {
  return text.includes("`") || text.includes("\n");
}

/** `\s` of a regular expression, for one character code: the ASCII blanks answered without one. */
function isBlank(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return /\s/.test(String.fromCharCode(code));
}

/** An extraction with nothing in it yet. */
export function emptyExtraction(): Extraction {
  return {
    commands: [],
    assignments: [],
    loose: { writes: [], reads: [], stdin: null },
    heredocs: [],
    unmodelled: [],
    functions: [],
    arithmetic: [],
    parseError: false,
  };
}

/** `time { ...` or `time -p { ...`, as tree-sitter reads it: the group is words of a command `time`. */
function opensTimedGroup(words: readonly ShellWord[]): boolean {
  const at = words[1]?.raw === "-p" ? 2 : 1;
  return words[0]?.raw === "time" && words[at]?.raw === "{";
}

class Extractor {
  /** Groups opened after `time` whose closing `}` has not been seen. */
  private timedGroups = 0;

  /** A `time { ...` that the script never closes: bash rejects the whole script. */
  get unclosedGroups(): boolean {
    return this.timedGroups > 0;
  }

  constructor(
    private readonly source: string,
    private readonly keepHeredocs: boolean,
    readonly out: Extraction,
  ) {}

  visit(node: SyntaxNode, stdin: StdinSource | null, redirects: FileRedirects = NO_REDIRECTS): void {
    this.checkWord(node);
    if (COMMAND_NODES.has(node.type)) return this.command(node, stdin, redirects);
    switch (node.type) {
      case "redirected_statement":
        return this.redirected(node, stdin);
      case "pipeline":
        return this.pipeline(node, stdin);
      case "variable_assignment": {
        const assignment = assignmentOf(node);
        if (VALID_NAME.test(assignment.name)) this.out.assignments.push(assignment);
        else
          this.out.commands.push({
            words: [invalidAssignment(node)],
            assignments: [],
            ...redirects,
            writes: [...redirects.writes],
            reads: [...redirects.reads],
            stdin,
            via: null,
          });
        return this.children(node, null);
      }
      case "heredoc_redirect":
        return this.heredoc(node);
      case "file_redirect":
        // `$(<file)` reads the file: a redirection with no command around it.
        if (!/^(command|redirected_statement)$/.test(node.parent?.type ?? "")) this.redirect(node, this.out.loose);
        return this.children(node, null);
      case "negated_command":
        // bash reads `!word` as one word; tree-sitter reads it as a negation.
        if (!/^!\s/.test(node.text)) this.out.parseError = true;
        return this.children(node, stdin);
      default:
        return this.children(node, stdin);
    }
  }

  /** Marks the input as unparsed where tree-sitter-bash is known to lose track of a script. */
  private checkWord(node: SyntaxNode): void {
    const type = node.type;
    const construct = constructOf(node, type);
    if (construct) this.construct(node, construct);
    if (type === "word" && hasBacktickOrNewline(node.text)) this.out.parseError = true;
    if (type === "simple_expansion" && /\s/.test(node.text)) this.out.parseError = true;
    if (type === "concatenation" && node.children.some((c) => c !== null && !c.isNamed && c.text.includes("`"))) this.out.parseError = true;
    if (this.afterEscapedBlank(node.startIndex)) this.out.parseError = true;
  }

  private newlineBetween(start: number, end: number): boolean {
    const newline = this.source.indexOf("\n", start);
    return newline !== -1 && newline < end;
  }

  /** tree-sitter drops an escaped blank (`\ `) before a word, which bash keeps as part of it. */
  private afterEscapedBlank(start: number): boolean {
    if (start < 2 || !isBlank(this.source.charCodeAt(start - 1))) return false;
    let slashes = 0;
    for (let i = start - 2; i >= 0 && this.source[i] === "\\"; i--) slashes++;
    return slashes % 2 === 1;
  }

  private construct(node: SyntaxNode, kind: Construct): void {
    switch (kind) {
      case "unmodelled":
        return void this.out.unmodelled.push(`the shell construct ${node.type} is not one the gate models`);
      case "function":
        return void this.out.functions.push(node.childForFieldName("name")?.text ?? "");
      case "expansion": {
        const why = riskyExpansion(node.text);
        if (why) this.out.unmodelled.push(why);
        // `${CDPATH:=/x}` sets the variable as an assignment would, to a value known only at run time.
        const assigned = expansionAssignment(node.text);
        if (assigned) this.out.assignments.push({ name: assigned, value: { text: "", raw: node.text, dynamic: true, glob: false } });
        return expansionArithmetic(node.text, this.out.arithmetic);
      }
      case "variable-test": {
        const operand = node.namedChildren.find((c) => c?.type !== "test_operator");
        const name = operand ? resolveWord(operand).text : "";
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) this.out.unmodelled.push(`the test ${node.text} evaluates a subscript`);
        return;
      }
      case "arithmetic": {
        // Of `${a[i]}` only the index is arithmetic; the array's own name is not evaluated.
        const index = node.type === "subscript" ? node.childForFieldName("index") : node;
        return index ? arithmeticNames(index, this.out.arithmetic) : undefined;
      }
      case "pattern":
        // Inside double quotes bash runs `<(cmd)` there too, which a heredoc body would not show.
        if (/[<>]\(/.test(node.text)) return void this.out.unmodelled.push(`the pattern of ${node.parent?.text ?? node.text} runs a process substitution`);
        // Expanded like an unquoted heredoc body: its substitutions are parsed from that text.
        return void this.out.heredocs.push(node.text);
      case "loop": {
        const name = node.childForFieldName("variable")?.text ?? "";
        const values = node.childrenForFieldName("value").filter((v): v is SyntaxNode => v !== null);
        const numeric = values.length > 0 && values.every((v) => /^-?\d+$/.test(v.text));
        return void this.out.assignments.push({ name, value: numeric ? literalWord("0") : { text: "", raw: "", dynamic: true, glob: false } });
      }
    }
  }

  private redirect(node: SyntaxNode, into: FileRedirects): void {
    if (!redirectOf(node, into)) this.out.parseError = true;
  }

  private children(node: SyntaxNode, stdin: StdinSource | null): void {
    for (const child of node.namedChildren) if (child) this.visit(child, stdin);
  }

  /** tree-sitter-bash parses heredoc bodies only in part, so the body is kept to be parsed again. */
  private heredoc(node: SyntaxNode): void {
    const start = node.namedChildren.find((c) => c?.type === "heredoc_start")?.text ?? "";
    // tree-sitter-bash reads `*<<EOF` or `<<EOF|` as odd delimiters and swallows what follows.
    if (!/^(\\?[\w.+@%:,-]+|'[^']*'|"[^"$`\\]*")$/.test(start)) this.out.parseError = true;
    const quoted = /['"\\]/.test(start);
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type !== "heredoc_body" || this.keepHeredocs) this.visit(child, null);
      else if (!quoted && /[$`]/.test(child.text)) this.out.heredocs.push(child.text);
    }
  }

  private pipeline(node: SyntaxNode, stdin: StdinSource | null): void {
    // Inside a heredoc redirect the pipeline's first stage is the command that owns the heredoc.
    const fedFromStart = node.parent?.type === "heredoc_redirect";
    let index = 0;
    for (const child of node.namedChildren) {
      if (!child) continue;
      this.visit(child, index === 0 && !fedFromStart ? stdin : "pipe");
      index++;
    }
  }

  private redirected(node: SyntaxNode, stdin: StdinSource | null): void {
    const redirects: FileRedirects = { writes: [], reads: [], stdin: null };
    const redirectNodes = node.childrenForFieldName("redirect").filter((r): r is SyntaxNode => r !== null);
    for (const r of redirectNodes) this.redirect(r, redirects);
    const body = node.childForFieldName("body");
    const fed = redirects.stdin ?? (redirects.reads.length > 0 ? null : stdin);
    if (body && COMMAND_NODES.has(body.type)) {
      this.command(body, fed, redirects);
      // `cmd - <<EOF`: tree-sitter drops a lone `-` before a heredoc; bash passes it as a word.
      const gap = redirectNodes[0] ? this.source.slice(body.endIndex, redirectNodes[0].startIndex).trim() : "";
      if (gap === "-") this.out.commands[this.out.commands.length - 1]?.words.push(literalWord("-"));
      else if (gap !== "") this.out.parseError = true;
      // `bash 0< x`: tree-sitter reads the descriptor as the last word; bash reads it as part of the redirection.
      const last = body.lastNamedChild;
      if (last?.type === "number" && last.endIndex === redirectNodes[0]?.startIndex) this.out.commands[this.out.commands.length - 1]?.words.pop();
    } else {
      this.out.loose.writes.push(...redirects.writes);
      this.out.loose.reads.push(...redirects.reads);
      if (body) this.visit(body, fed);
    }
    for (const r of redirectNodes) this.visit(r, null);
  }

  private command(node: SyntaxNode, stdin: StdinSource | null, outer: FileRedirects): void {
    const cmd: SubCommand = {
      words: [],
      assignments: [],
      writes: outer.writes.length > 0 ? outer.writes.slice() : [],
      reads: outer.reads.length > 0 ? outer.reads.slice() : [],
      stdin: outer.stdin ?? stdin,
      via: null,
    };
    // The command's own redirections, once it has one.
    let own: FileRedirects | null = null;
    let previousEnd = -1;
    let previousType = "";
    for (const child of node.namedChildren) {
      if (!child) continue;
      const redirect = child.type.endsWith("_redirect");
      // Two words with nothing between them are one word to bash; tree-sitter split it (`{\rm`).
      if (child.startIndex === previousEnd && !redirect) this.out.parseError = true;
      // A newline ends a command; tree-sitter sometimes reads the next line as more of its words.
      if (previousEnd >= 0 && previousType !== "heredoc_redirect" && this.newlineBetween(previousEnd, child.startIndex)) this.out.parseError = true;
      // `cmd - <<EOF`: tree-sitter drops a lone `-` before a heredoc; bash passes it as a word.
      const gap = redirect && previousEnd >= 0 ? this.source.slice(previousEnd, child.startIndex).trim() : "";
      if (gap === "-") cmd.words.push(literalWord("-"));
      else if (gap !== "") this.out.parseError = true;
      // `0<<<x`: tree-sitter reads the descriptor as a word of its own; bash reads it as part of the redirection.
      if (child.startIndex === previousEnd && redirect && previousType === "number") cmd.words.pop();
      previousEnd = child.endIndex;
      previousType = child.type;
      this.checkWord(child);
      if (child.type === "variable_assignment") {
        // tree-sitter accepts names like `*A`; bash does not, and runs `*A=1` as a command word.
        if (node.type === "command" && !VALID_NAME.test(assignmentOf(child).name)) cmd.words.push(invalidAssignment(child));
        else if (node.type === "command") cmd.assignments.push(assignmentOf(child));
        else {
          cmd.words.push(resolveWord(child));
          this.out.assignments.push(assignmentOf(child));
        }
      } else if (redirect) this.redirect(child, (own ??= { writes: [], reads: [], stdin: null }));
      else if (child.type === "command_name") {
        const word = child.namedChildren[0];
        if (word) cmd.words.push(resolveWord(word));
      } else if (child.type !== "comment") cmd.words.push(resolveWord(child));
      // Plain words have no children worth visiting; asking the parser for them costs a marshal each.
      if (!LEAVES.has(child.type)) this.children(child, null);
    }
    if (node.type !== "command") cmd.words.unshift(resolveKeyword(node));
    if (opensTimedGroup(cmd.words)) this.timedGroups++;
    // tree-sitter has no `time` keyword: `time { a; b; }` ends in a command `}`, which closes that group.
    if (this.timedGroups > 0 && cmd.words.length === 1 && cmd.words[0]!.raw === "}" && cmd.assignments.length === 0) {
      this.timedGroups--;
      // Its redirections are the group's (`time { a; } > log`).
      this.out.loose.writes.push(...cmd.writes, ...(own?.writes ?? []));
      this.out.loose.reads.push(...cmd.reads, ...(own?.reads ?? []));
      return;
    }
    // A reserved word as a command name: tree-sitter lost track of a group or a clause.
    if (RESERVED.has(cmd.words[0]?.raw ?? "")) this.out.parseError = true;
    if (own) {
      for (const w of own.writes) cmd.writes.push(w);
      for (const r of own.reads) cmd.reads.push(r);
      cmd.stdin = own.stdin ?? cmd.stdin;
    }
    const fedText = own?.stdinText ?? outer.stdinText;
    if (fedText) cmd.stdinText = fedText;
    if (cmd.words.length > 0 || cmd.assignments.length > 0) this.out.commands.push(cmd);
  }
}

function resolveKeyword(node: SyntaxNode): ShellWord {
  const keyword = node.children[0]?.text ?? node.type;
  return { text: keyword, raw: keyword, dynamic: false, glob: false };
}

/**
 * Walks a parsed script and returns every command node at any depth, with its redirections.
 * Heredoc bodies are returned as text to be normalised and parsed again, unless `keepHeredocs`.
 * What it finds is added to `into`, whose lists may already hold what other scripts gave.
 */
export function extractCommands(tree: ShellTree, source: string, keepHeredocs = false, into: Extraction = emptyExtraction()): Extraction {
  const extractor = new Extractor(source, keepHeredocs, into);
  extractor.visit(tree.root, null);
  extractor.out.parseError ||= tree.hasError || extractor.unclosedGroups;
  return extractor.out;
}
