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
  /** Spaces in a row shown as they are; a longer run is one marker. */
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

function collapseSpaces(line: string, n: number, limits: SightLimits, cuts: Cut[]): string {
  return line.replace(new RegExp(`[ \t]{${limits.maxSpaceRun + 1},}`, "g"), (run) => {
    const what = `${count(run.length)} ${/\t/.test(run) ? "spaces and tabs" : "spaces"}`;
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
    out.push(cutLong(collapseSpaces(lines[i]!, i + 1, limits, cuts), i + 1, limits, cuts));
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
