import type { SyntaxNode } from "./parser.js";

/** One shell word after quote removal: what the shell would pass, when it is known. */
export interface ShellWord {
  text: string;
  raw: string;
  /** Contains an expansion or substitution: its value is only known when the shell runs. */
  dynamic: boolean;
  /** Contains an unquoted glob or brace expansion: it may name other files than written. */
  glob: boolean;
}

export function isLiteral(word: ShellWord): boolean {
  return !word.dynamic && !word.glob;
}

export function literalWord(text: string): ShellWord {
  return { text, raw: text, dynamic: false, glob: false };
}

const BRACE_EXPANSION = /\{[^{}\s]*(,|\.\.)[^{}\s]*\}/;

const DYNAMIC = new Set(["simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion"]);

/** Whether unquoted text differs from what it says, or is a glob: it has a backslash, `*`, `?` or `[`. */
function needsUnquoting(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 || c === 42 || c === 63 || c === 91) return true;
  }
  return false;
}

/** Brace expansion needs a `{`; most words have none, and are not run through the pattern. */
function mayExpandBraces(text: string): boolean {
  return text.includes("{") && BRACE_EXPANSION.test(text);
}

/** Unquoted text: backslash escapes resolve, `\` + newline disappears, globs and braces are noted. */
function unquoted(text: string): { text: string; glob: boolean } {
  if (!needsUnquoting(text)) return { text, glob: mayExpandBraces(text) };
  let out = "";
  let glob = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\" && i + 1 < text.length) {
      const next = text[++i]!;
      if (next !== "\n") out += next;
      continue;
    }
    if (c === "*" || c === "?" || c === "[") glob = true;
    out += c;
  }
  return { text: out, glob: glob || mayExpandBraces(text) };
}

function doubleQuoted(inner: string): string {
  return inner.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === "\n" ? "" : c));
}

const ANSI_C: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

function ansiC(inner: string): string {
  return inner.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (m, e: string) => {
    const kind = e[0]!;
    if (kind === "x" || kind === "u" || kind === "U") return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/[0-7]/.test(kind)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    if (kind === "c" && e.length === 2) return String.fromCharCode(e.charCodeAt(1) & 0x1f);
    return ANSI_C[kind] ?? m;
  });
}

/** Resolves a word node the way the shell would, as far as it can be known without running it. */
export function resolveWord(node: SyntaxNode): ShellWord {
  const raw = node.text;
  switch (node.type) {
    case "word": {
      if (!needsUnquoting(raw)) return { text: raw, raw, dynamic: false, glob: mayExpandBraces(raw) };
      const u = unquoted(raw);
      return { text: u.text, raw, dynamic: false, glob: u.glob };
    }
    case "number":
      return { text: raw, raw, dynamic: false, glob: false };
    case "raw_string":
      return { text: raw.slice(1, -1), raw, dynamic: false, glob: false };
    case "ansi_c_string":
      return { text: ansiC(raw.slice(2, -1)), raw, dynamic: false, glob: false };
    case "translated_string": {
      const inner = node.namedChildren[0];
      return inner ? { ...resolveWord(inner), raw } : { text: "", raw, dynamic: false, glob: false };
    }
    case "string": {
      const dynamic = node.namedChildren.some((c) => c !== null && c.type !== "string_content");
      const open = raw.indexOf('"');
      return { text: doubleQuoted(raw.slice(open + 1, -1)), raw, dynamic, glob: false };
    }
    case "concatenation":
      return concatenate(node, raw);
    case "variable_assignment": {
      const value = node.childForFieldName("value");
      const v = value ? resolveWord(value) : literalWord("");
      const name = raw.slice(0, raw.indexOf("=") + 1);
      return { text: name + v.text, raw, dynamic: v.dynamic, glob: v.glob };
    }
    case "brace_expression":
      return { text: raw, raw, dynamic: false, glob: true };
    default:
      return { text: raw, raw, dynamic: true, glob: false };
  }
}

function concatenate(node: SyntaxNode, raw: string): ShellWord {
  let text = "";
  let dynamic = false;
  let glob = false;
  for (const child of node.children) {
    if (!child) continue;
    const part = child.isNamed ? resolveWord(child) : { ...unquoted(child.text), dynamic: false };
    text += part.text;
    dynamic ||= part.dynamic || DYNAMIC.has(child.type);
    glob ||= part.glob;
  }
  return { text, raw, dynamic, glob: glob || mayExpandBraces(raw) };
}

/**
 * Removes line continuations (backslash-newline) the way bash does before it splits words: not
 * inside single quotes, and not in a comment, which a newline ends even after a backslash.
 */
export function joinContinuations(source: string): string {
  if (!source.includes("\\\n")) return source;
  let out = "";
  // Inside `'...'` nothing is special; inside `$'...'` a backslash escapes the next character.
  let quote: "'" | "$'" | '"' | null = null;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (quote === "'" || (quote === "$'" && c !== "\\")) {
      out += c;
      if (c === "'") quote = null;
    } else if (quote === "$'") {
      out += c + (source[++i] ?? "");
    } else if (c === "\\" && i + 1 < source.length) {
      if (source[i + 1] === "\n") i++;
      else out += c + source[++i]!;
    } else if (c === "#" && (i === 0 || WORD_BREAK.test(source[i - 1]!))) {
      // Also inside double quotes: there `#` may start a comment of a `$( )`; keeping a
      // continuation there only ever shows the parser more lines, never fewer.
      const end = source.indexOf("\n", i);
      out += end === -1 ? source.slice(i) : source.slice(i, end + 1);
      i = end === -1 ? source.length : end;
    } else {
      out += c;
      if (c === '"') quote = quote === '"' ? null : '"';
      else if (c === "'" && quote === null) quote = source[i - 1] === "$" ? "$'" : "'";
    }
  }
  return out;
}
/** Characters after which a `#` starts a comment. */
const WORD_BREAK = /[\s;&|()<>]/;
