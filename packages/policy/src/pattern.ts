import picomatch from "picomatch";
import { linearGlob } from "./linear-glob.js";

const OPTIONS = { dot: true, bash: true } as const;
// picomatch refuses to let "*" cross a "." or ".." path segment. Shell subjects and tool names are
// not paths, so that guard would let `rm a/../b` slip past a deny on `rm *`; it is removed there.
const DOT_SEGMENT_GUARD = "(?!(?:^|\\/)\\.{1,2}(?:\\/|$))";

export type PatternKind = "absolute" | "basename" | "relative";

/** A glob compiled once. `"P *"` also matches `P` alone. */
export interface CompiledPattern {
  source: string;
  kind: PatternKind;
  test(subject: string): boolean;
}

export function patternKind(pattern: string): PatternKind {
  if (pattern.startsWith("/")) return "absolute";
  return pattern.includes("/") ? "relative" : "basename";
}

export function globRegExp(glob: string, pathLike: boolean): RegExp {
  // picomatch drops a leading `./`, right for paths (they are normalised) but not for a command
  // such as `./gradlew build`: there the dot is escaped so that it stays.
  const re = picomatch.makeRe(!pathLike && glob.startsWith("./") ? `\\${glob}` : glob, OPTIONS);
  const source = pathLike ? re.source : re.source.split(DOT_SEGMENT_GUARD).join("");
  // "s": a "*" also spans newlines inside a quoted shell word.
  return new RegExp(source, "s");
}

/**
 * Globs of characters that picomatch takes as themselves, besides `*`, `?` and `/`. A `/` does not
 * count as a literal: next to a globstar it may match nothing (`a/**` matches `a`).
 */
const PLAIN_GLOB = /^[A-Za-z0-9 _\-.:=,%/*?]*$/;
const WILDCARDS = /[*?/]+/;

/**
 * Text every match of the glob starts with (`start`) or contains: most rules are ruled out by
 * it without running their regular expression. Null where the glob has other special characters,
 * or begins with `./`, which picomatch drops.
 */
export function necessaryText(glob: string): { text: string; start: boolean } | null {
  if (!PLAIN_GLOB.test(glob) || glob.startsWith("./")) return null;
  const runs = glob.split(WILDCARDS);
  const first = runs[0]!;
  if (first !== "") return { text: first, start: true };
  let longest = "";
  for (const run of runs) if (run.length > longest.length) longest = run;
  return longest === "" ? null : { text: longest, start: false };
}

/**
 * The path every match of an absolute glob is, or lies in: the glob itself when it has no
 * wildcard (`/home/u/.netrc`), else its literal start up to the last `/` before the first
 * wildcard (`/home/u/.ssh` of `/home/u/.ssh/*`). Null for a glob that is not absolute or has
 * other special characters.
 */
export function literalFolder(glob: string): string | null {
  if (!glob.startsWith("/") || !PLAIN_GLOB.test(glob)) return null;
  const wild = glob.search(/[*?]/);
  if (wild === -1) return glob.replace(/\/+$/, "") || "/";
  const literal = glob.slice(0, wild);
  return literal.slice(0, literal.lastIndexOf("/")) || "/";
}

/**
 * The first word (up to the first space) of every text a command pattern matches: `git` of
 * `git push *`, `ls` of `ls *`. Null where a match may start otherwise (`ls*`, `* x`, `/bin/rm *`).
 */
export function commandHead(pattern: string): string | null {
  const bare = pattern.endsWith(" *") ? pattern.slice(0, -2) : pattern;
  const needed = necessaryText(bare);
  if (!needed?.start) return null;
  const space = needed.text.indexOf(" ");
  if (space > 0) return needed.text.slice(0, space);
  return space === -1 && needed.text === bare ? bare : null;
}

/** What commandHead compares: a text's first word, up to its first space. */
export function headOf(text: string): string {
  const space = text.indexOf(" ");
  return space === -1 ? text : text.slice(0, space);
}

/** Text of characters that picomatch takes as themselves, slash and wildcards left out. */
const LITERAL = /^[A-Za-z0-9 _\-.:=,%]+$/;

/**
 * A command pattern that is literal text, or literal text and ` *`: compared as strings, which is
 * what its regular expression does (in a command, `*` matches anything, newlines included).
 */
function literalTest(pattern: string): ((s: string) => boolean) | null {
  const bare = pattern.endsWith(" *") ? pattern.slice(0, -2) : null;
  const literal = bare ?? pattern;
  if (!LITERAL.test(literal) || literal === "." || literal === "..") return null;
  if (bare === null) return (s) => s === literal;
  const spaced = `${literal} `;
  return (s) => s === literal || s.startsWith(spaced);
}

/** A path glob is matched in linear time where it can be: a model's long path never makes a rule slow. */
function globTest(glob: string, pathLike: boolean): (subject: string) => boolean {
  const re = globRegExp(glob, pathLike);
  return (pathLike ? linearGlob(glob, re) : null) ?? ((s) => re.test(s));
}

export function compilePattern(pattern: string, pathLike: boolean): CompiledPattern {
  const literal = pathLike ? null : literalTest(pattern);
  if (literal) return { source: pattern, kind: patternKind(pattern), test: literal };
  const main = globTest(pattern, pathLike);
  const bare = pattern.endsWith(" *") ? globTest(pattern.slice(0, -2), pathLike) : null;
  const full = bare ? (s: string) => main(s) || bare(s) : main;
  // `P *` also matches `P` alone: what both forms need is what `P` needs.
  const needed = necessaryText(bare ? pattern.slice(0, -2) : pattern);
  let test = full;
  if (needed?.start) test = (s) => s.startsWith(needed.text) && full(s);
  else if (needed) test = (s) => s.includes(needed.text) && full(s);
  return { source: pattern, kind: patternKind(pattern), test };
}
