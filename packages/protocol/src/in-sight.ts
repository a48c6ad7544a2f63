/**
 * Shown text kept within sight: what its length would push out of view (a run of thousands of
 * spaces, a very long line, hundreds of blank lines, too many lines) is left out, and a marker
 * `⟦…⟧` says what and where. Content never carries `⟦` or `⟧` itself (`showText` escapes them),
 * so a marker cannot be forged. The input is text already made safe by `showText`.
 */

export interface SightLimits {
  /** Lines shown; the rest is left out with one marker line. */
  maxLines: number;
  /** Characters shown of one line; the rest of it is left out. */
  maxLineChars: number;
  /** Columns of blanks in a row (a tab to its tab stop) shown as they are; a wider run is one marker. */
  maxSpaceRun: number;
  /** Blank lines in a row shown as they are; a longer run is one marker line. */
  maxBlankRun: number;
  /** A unified diff: a line's first character is its `+`/`-`/` ` mark, kept on a marker line. */
  diff?: boolean;
}

export const SCREEN_LIMITS: SightLimits = { maxLines: 16, maxLineChars: 300, maxSpaceRun: 16, maxBlankRun: 2 };

/** What was left out, and where (1-based line numbers of the whole text). */
export interface Cut {
  line: number;
  lastLine?: number;
  what: string;
}

export interface InSight {
  text: string;
  cuts: Cut[];
}

const count = (n: number) => n.toLocaleString("en-US");
/** A visible unit: one escape (`\u202E`, `\\`) or one code point, so that no cut splits an escape. */
const UNIT = /\\(?:x[0-9a-fA-F]{2}|u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|[\s\S])|[\s\S]/gu;

/** Columns a tab moves to: the next multiple of eight, as terminals and the console's boxes draw it. */
export const TAB_STOP = 8;
/** Blanks at the start of a line (indentation) shown as they are up to this many columns: they push nothing out of sight. */
const MAX_INDENT = 64;
/** A run of blanks; combining marks in it take no column and would otherwise split it into runs each under the limit. */
const BLANKS = /[ \t][ \t\p{M}]*/gu;

/** The columns `run` takes when it starts at column `col`. */
function runWidth(run: string, col: number): number {
  let at = col;
  for (const c of run)
    if (c === "\t") at += TAB_STOP - (at % TAB_STOP);
    else if (c === " ") at += 1;
  return at - col;
}

function describeRun(run: string): string {
  const tabs = run.split("\t").length - 1;
  const spaces = run.split(" ").length - 1;
  const marks = [...run].length - tabs - spaces;
  const what = tabs === 0 ? `${count(spaces)} spaces` : spaces === 0 ? `${count(tabs)} tabs` : `${count(spaces + tabs)} spaces and tabs`;
  return marks > 0 ? `${what} and ${count(marks)} combining marks` : what;
}

/** The line with each run of blanks wider than the limit (in columns, a tab to its tab stop) left out with a marker. */
function collapseSpaces(line: string, n: number, limits: SightLimits, cuts: Cut[]): string {
  let out = "";
  let col = 0;
  let last = 0;
  for (const m of line.matchAll(BLANKS)) {
    const before = line.slice(last, m.index);
    out += before;
    col += [...before].length;
    const run = m[0];
    const width = runWidth(run, col);
    const indent = m.index <= (limits.diff ? 1 : 0);
    if (width > (indent ? Math.max(MAX_INDENT, limits.maxSpaceRun) : limits.maxSpaceRun)) {
      const what = describeRun(run);
      cuts.push({ line: n, what });
      out += ` ⟦${what}⟧ `;
      col += what.length + 4;
    } else {
      out += run;
      col += width;
    }
    last = m.index + run.length;
  }
  return out + line.slice(last);
}

/** Combining marks on one letter shown as they are; a longer stack (which draws over its neighbours, or as one unbreakable cluster) is one marker. */
const MAX_MARKS = 8;
const MARK_STACK = new RegExp(`\\p{M}{${MAX_MARKS + 1},}`, "gu");

function collapseMarks(line: string, n: number, cuts: Cut[]): string {
  return line.replace(MARK_STACK, (stack) => {
    const what = `${count([...stack].length)} combining marks`;
    cuts.push({ line: n, what });
    return ` ⟦${what}⟧ `;
  });
}

function cutLong(line: string, n: number, limits: SightLimits, cuts: Cut[]): string {
  if (line.length <= limits.maxLineChars) return line;
  let kept = "";
  let rest = 0;
  for (const [unit] of line.matchAll(UNIT)) {
    if (kept.length + unit.length <= limits.maxLineChars && rest === 0) kept += unit;
    else rest += unit.length;
  }
  if (rest === 0) return line;
  cuts.push({ line: n, what: `${count(rest)} characters after column ${count(kept.length)}` });
  return `${kept} ⟦${count(rest)} more characters on this line⟧`;
}

const isBlank = (line: string, diff: boolean) => (diff ? /^[+\- ]?\s*$/.test(line) : /^\s*$/.test(line));

/** The index after the run of blank lines that starts at `i` (`i` itself when line `i` is not blank). */
function blankRunEnd(lines: string[], i: number, diff: boolean): number {
  let end = i;
  while (end < lines.length && isBlank(lines[end]!, diff)) end++;
  return end;
}

/** The text within the limits, with a marker for each thing left out. */
export function inSight(shown: string, limits: SightLimits): InSight {
  const diff = limits.diff === true;
  const cuts: Cut[] = [];
  const lines = shown.split("\n");
  const out: string[] = [];
  /** The line number (1-based) in `shown` of each line of `out`. */
  const from: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const end = blankRunEnd(lines, i, diff);
    if (end - i > limits.maxBlankRun) {
      cuts.push({ line: i + 1, lastLine: end, what: `${count(end - i)} blank lines` });
      out.push(`${diff ? (lines[i]![0] ?? "") : ""}⟦${count(end - i)} blank lines⟧`);
      from.push(i + 1);
      i = end - 1;
      continue;
    }
    out.push(cutLong(collapseSpaces(collapseMarks(lines[i]!, i + 1, cuts), i + 1, limits, cuts), i + 1, limits, cuts));
    from.push(i + 1);
  }
  if (out.length > limits.maxLines) {
    const left = out.length - limits.maxLines;
    cuts.push({ line: from[limits.maxLines]!, lastLine: lines.length, what: `${count(lines.length - from[limits.maxLines]! + 1)} more lines` });
    out.splice(limits.maxLines, left, `⟦${count(lines.length - from[limits.maxLines]! + 1)} more lines⟧`);
  }
  return { text: out.join("\n"), cuts };
}

/** The cuts in a few words, for the mark: `4,000 spaces on line 1; 200 blank lines at lines 2-201`. */
export function describeCuts(cuts: Cut[], max = 3): string {
  const said = cuts.slice(0, max).map((c) => `${c.what} ${c.lastLine ? `at lines ${c.line}-${c.lastLine}` : `on line ${c.line}`}`);
  if (cuts.length > max) said.push(`${cuts.length - max} more`);
  return said.join("; ");
}

/** One line of shown text in at most `max` characters: long runs of spaces marked, the end cut at an escape's edge with `…`. */
export function cutLine(shown: string, max: number): string {
  const line = collapseSpaces(shown, 1, { ...SCREEN_LIMITS, maxLines: 1 }, []);
  if (line.length <= max) return line;
  let kept = "";
  for (const [unit] of line.matchAll(UNIT)) {
    if (kept.length + unit.length > max - 1) break;
    kept += unit;
  }
  return `${kept}…`;
}
