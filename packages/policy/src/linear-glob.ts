/**
 * A path glob matched in time linear in the path: the glob is made a small automaton, and every
 * state it can be in is followed at once, one character of the path at a time. The regular
 * expression picomatch makes of a glob with several wildcards backtracks on a long path that
 * nearly matches (`**\/node_modules/**\/*.js` takes seconds on a 32 KB path); this cannot.
 *
 * It takes the plain globs most rules are (literals, `*`, `?`, `/`, `**` as a whole segment) and
 * matches them as picomatch does with `bash` and `dot` set, for normalised paths (no `.` or `..`
 * segment, no `//`, no trailing `/`). Other globs and paths are left to picomatch.
 */

type State =
  | { kind: "char"; char: string; next: number }
  | { kind: "notSlash"; next: number }
  | { kind: "any"; next: number }
  | { kind: "split"; to: readonly number[] }
  | { kind: "end"; next: number }
  | { kind: "match" };

/** The characters of a plain glob. */
const PLAIN = /^[A-Za-z0-9 _\-.:=,%/*?]+$/;
/** Plain globs left to picomatch: `***`, `//`, a trailing `/`, `**` twice in a row, a `.` or `..` segment. */
const UNUSUAL = /\*\*\*|\/\/|\/$|(^|\/)\*\*\/\*\*(\/|$)|(^|\/)\.{1,2}(\/|$)/;
/** Paths matched by picomatch instead: the empty path, a `.` or `..` segment, a trailing slash. */
const UNUSUAL_PATH = /^$|(^|\/)\.{1,2}(\/|$)|\/$/;

/** Runs of stars: a regular expression with one of them is at worst the path's length times the glob's. */
const WILDCARDS = /\*+/g;

class Builder {
  readonly states: State[] = [];

  /** Adds a state whose successor is the next state added, unless told otherwise. */
  add(state: State): number {
    this.states.push(state);
    return this.states.length - 1;
  }

  get next(): number {
    return this.states.length;
  }

  segment(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (c === "*") {
        while (text[i + 1] === "*") i++;
        this.add({ kind: "any", next: this.next + 1 });
      } else if (c === "?") this.add({ kind: "notSlash", next: this.next + 1 });
      else this.add({ kind: "char", char: c, next: this.next + 1 });
    }
  }

  /** `(anything /)?`, then what follows. */
  optionalFolders(): void {
    const split = this.add({ kind: "split", to: [] });
    this.add({ kind: "any", next: this.next + 1 });
    this.add({ kind: "char", char: "/", next: this.next + 1 });
    this.states[split] = { kind: "split", to: [split + 1, this.next] };
  }
}

/** The automaton of a plain glob, or null where the glob is not one this matches. */
function build(glob: string): State[] | null {
  if (!PLAIN.test(glob) || UNUSUAL.test(glob)) return null;
  const segments = glob.split("/");
  const b = new Builder();
  segments.forEach((segment, i) => {
    const before = segments[i - 1];
    if (segment !== "**") {
      if (i > 0 && before !== "**") b.add({ kind: "char", char: "/", next: b.next + 1 });
      b.segment(segment);
    } else if (segments.length === 1) b.add({ kind: "any", next: b.next + 1 });
    else if (i === 0) b.optionalFolders();
    else globstarAfter(b, before!, i === segments.length - 1);
  });
  b.add({ kind: "match" });
  return b.states;
}

/** A `**` segment after another segment, with the slashes around it. */
function globstarAfter(b: Builder, before: string, last: boolean): void {
  if (before === "" || (last && before.endsWith("*"))) {
    // After `/` alone, or at the end after a segment that ends in a star, picomatch asks for the slashes: `/**/a` is `/…/a`.
    b.add({ kind: "char", char: "/", next: b.next + 1 });
    b.add({ kind: "any", next: b.next + 1 });
    if (!last) b.add({ kind: "char", char: "/", next: b.next + 1 });
    return;
  }
  // `a/**` is `a` or `a/…`; `a/**/b` is `a/b` or `a/…/b`, or `a` where the rest matches nothing.
  const split = b.add({ kind: "split", to: [] });
  const end = last ? -1 : b.add({ kind: "end", next: -1 });
  b.add({ kind: "char", char: "/", next: b.next + 1 });
  if (last) b.add({ kind: "any", next: b.next + 1 });
  else b.optionalFolders();
  const after = b.next;
  b.states[split] = { kind: "split", to: last ? [split + 1, after] : [end, end + 1] };
  if (!last) b.states[end] = { kind: "end", next: after };
}

/** A walk over the automaton: the states it is in, each marked with the step that reached it. */
class Walk {
  private marks: Int32Array;
  private step = 0;
  current: number[] = [];
  private next: number[] = [];

  constructor(private readonly states: readonly State[]) {
    this.marks = new Int32Array(states.length).fill(-1);
  }

  /** Enters `state` and every state reachable from it without reading a character. */
  private enter(state: number, atEnd: boolean): void {
    if (this.marks[state] === this.step) return;
    this.marks[state] = this.step;
    this.next.push(state);
    const s = this.states[state]!;
    if (s.kind === "split") for (const t of s.to) this.enter(t, atEnd);
    else if (s.kind === "any" || (s.kind === "end" && atEnd)) this.enter(s.next, atEnd);
  }

  /** Whether the whole subject leads to the match state. */
  run(subject: string): boolean {
    // Marks of an earlier run are older steps; they are cleared only before the counter wraps.
    if (this.step > 0x3fffffff - subject.length) [this.step, this.marks] = [0, this.marks.fill(-1)];
    this.step++;
    this.current.length = 0;
    this.enter(0, subject.length === 0);
    this.advance();
    for (let i = 0; i < subject.length && this.current.length > 0; i++) this.read(subject[i]!, i === subject.length - 1);
    return this.current.some((at) => this.states[at]!.kind === "match");
  }

  private read(c: string, atEnd: boolean): void {
    this.step++;
    for (const at of this.current) {
      const s = this.states[at]!;
      if (s.kind === "any") this.enter(at, atEnd);
      else if ((s.kind === "char" && s.char === c) || (s.kind === "notSlash" && c !== "/")) this.enter(s.next, atEnd);
    }
    this.advance();
  }

  private advance(): void {
    [this.current, this.next] = [this.next, this.current];
    this.next.length = 0;
  }
}

/**
 * A test that matches a path as picomatch's `fallback` does, in time linear in the path, where
 * the glob is a plain one with two or more wildcards; null where it is not (with one wildcard,
 * the regular expression is as fast and bounded the same).
 */
export function linearGlob(glob: string, fallback: RegExp): ((subject: string) => boolean) | null {
  if ((glob.match(WILDCARDS) ?? []).length < 2) return null;
  const states = build(glob);
  if (!states) return null;
  const walk = new Walk(states);
  return (subject) => (UNUSUAL_PATH.test(subject) ? fallback.test(subject) : walk.run(subject));
}
