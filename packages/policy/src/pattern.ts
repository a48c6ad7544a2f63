import picomatch from "picomatch";

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

function toRegExp(glob: string, pathLike: boolean): RegExp {
  const re = picomatch.makeRe(glob, OPTIONS);
  const source = pathLike ? re.source : re.source.split(DOT_SEGMENT_GUARD).join("");
  // "s": a "*" also spans newlines inside a quoted shell word.
  return new RegExp(source, "s");
}

export function compilePattern(pattern: string, pathLike: boolean): CompiledPattern {
  const main = toRegExp(pattern, pathLike);
  const bare = pattern.endsWith(" *") ? toRegExp(pattern.slice(0, -2), pathLike) : null;
  return {
    source: pattern,
    kind: patternKind(pattern),
    test: bare ? (s) => main.test(s) || bare.test(s) : (s) => main.test(s),
  };
}
