import type { SyntaxNode } from "./parser.js";
import { resolveWord, type ShellWord } from "./words.js";

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
  parseError: boolean;
}

const NO_REDIRECTS: FileRedirects = { writes: [], reads: [], stdin: null };
const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const READ_OPS = new Set(["<", "<>"]);
const COMMAND_NODES = new Set(["command", "declaration_command", "unset_command"]);

function redirectOf(node: SyntaxNode, into: FileRedirects): void {
  if (node.type === "heredoc_redirect") into.stdin = "heredoc";
  else if (node.type === "herestring_redirect") into.stdin = "herestring";
  if (node.type !== "file_redirect") return;
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
}

function assignmentOf(node: SyntaxNode): Assignment {
  const name = node.childForFieldName("name")?.text ?? node.text.split("=")[0] ?? "";
  const value = node.childForFieldName("value");
  return { name: name.replace(/\+$/, ""), value: value ? resolveWord(value) : null };
}

class Extractor {
  readonly out: Extraction = {
    commands: [],
    assignments: [],
    loose: { writes: [], reads: [], stdin: null },
    parseError: false,
  };

  visit(node: SyntaxNode, stdin: StdinSource | null, redirects: FileRedirects = NO_REDIRECTS): void {
    if (COMMAND_NODES.has(node.type)) return this.command(node, stdin, redirects);
    switch (node.type) {
      case "redirected_statement":
        return this.redirected(node, stdin);
      case "pipeline":
        return this.pipeline(node, stdin);
      case "variable_assignment":
        this.out.assignments.push(assignmentOf(node));
        return this.children(node, null);
      default:
        return this.children(node, stdin);
    }
  }

  private children(node: SyntaxNode, stdin: StdinSource | null): void {
    for (const child of node.namedChildren) if (child) this.visit(child, stdin);
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
    for (const r of redirectNodes) redirectOf(r, redirects);
    const body = node.childForFieldName("body");
    const fed = redirects.stdin ?? (redirects.reads.length > 0 ? null : stdin);
    if (body && COMMAND_NODES.has(body.type)) this.command(body, fed, redirects);
    else {
      this.out.loose.writes.push(...redirects.writes);
      this.out.loose.reads.push(...redirects.reads);
      if (body) this.visit(body, fed);
    }
    for (const r of redirectNodes) this.children(r, null);
  }

  private command(node: SyntaxNode, stdin: StdinSource | null, outer: FileRedirects): void {
    const cmd: SubCommand = {
      words: [],
      assignments: [],
      writes: [...outer.writes],
      reads: [...outer.reads],
      stdin: outer.stdin ?? stdin,
      via: null,
    };
    const own: FileRedirects = { writes: [], reads: [], stdin: null };
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "variable_assignment") {
        if (node.type === "command") cmd.assignments.push(assignmentOf(child));
        else {
          cmd.words.push(resolveWord(child));
          this.out.assignments.push(assignmentOf(child));
        }
      } else if (child.type.endsWith("_redirect")) redirectOf(child, own);
      else if (child.type === "command_name") {
        const word = child.namedChildren[0];
        if (word) cmd.words.push(resolveWord(word));
      } else if (child.type !== "comment") cmd.words.push(resolveWord(child));
      this.children(child, null);
    }
    if (node.type !== "command") cmd.words.unshift(resolveKeyword(node));
    cmd.writes.push(...own.writes);
    cmd.reads.push(...own.reads);
    cmd.stdin = own.stdin ?? cmd.stdin;
    if (cmd.words.length > 0 || cmd.assignments.length > 0) this.out.commands.push(cmd);
  }
}

function resolveKeyword(node: SyntaxNode): ShellWord {
  const keyword = node.children[0]?.text ?? node.type;
  return { text: keyword, raw: keyword, dynamic: false, glob: false };
}

/** Walks a parsed script and returns every command node at any depth, with its redirections. */
export function extractCommands(root: SyntaxNode): Extraction {
  const extractor = new Extractor();
  extractor.visit(root, null);
  extractor.out.parseError = root.hasError;
  return extractor.out;
}
