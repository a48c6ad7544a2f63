import { inSight, safePresentation, SCREEN_LIMITS, TAB_STOP, type Cut, type Presentation } from "@gatehouse/protocol";
import { Box, Text } from "ink";
import { screenRows } from "./screen-rows.js";

/** Where a diff's hunks begin: a line from there on is a change or context, whatever its text (`+++` is an added `++`). */
export const firstHunk = (lines: readonly string[]): number => {
  const at = lines.findIndex((line) => line.startsWith("@@"));
  return at < 0 ? lines.length : at;
};

/** One line of a unified diff, coloured by what it does; a header only above the first hunk. */
export function DiffLine({ line, header }: { line: string; header: boolean }) {
  if (header && (line.startsWith("+++") || line.startsWith("---"))) return <Text bold>{line}</Text>;
  if (line.startsWith("+")) return <Text color="green">{line}</Text>;
  if (line.startsWith("-")) return <Text color="red">{line}</Text>;
  if (line.startsWith("@@")) return <Text color="cyan">{line}</Text>;
  return <Text>{line || " "}</Text>;
}

/** A presentation as the screen shows it: safe to print, with what its length would push out of sight left out. */
export interface OnScreen {
  presentation: Presentation;
  lines: string[];
  cuts: Cut[];
}

/**
 * A line with its tabs written as the spaces a screen would move them by: Ink counts a tab as no
 * column, so text after tabs would be drawn past the box's edge instead of wrapping inside it.
 */
function expandTabs(line: string): string {
  let column = 0;
  return line.replace(/\t|[^\t]+/g, (part) => {
    if (part !== "\t") return ((column += part.length), part);
    const spaces = TAB_STOP - (column % TAB_STOP);
    column += spaces;
    return " ".repeat(spaces);
  });
}

export function onScreen(presentation: Presentation): OnScreen {
  const p = safePresentation(presentation);
  const fitted = inSight(p.content.replace(/\n$/, ""), { ...SCREEN_LIMITS, maxLines: Number.MAX_SAFE_INTEGER, diff: p.kind === "diff" });
  return { presentation: p, lines: fitted.text.split("\n").map(expandTabs), cuts: fitted.cuts };
}

/** How many of the first lines of a presentation fit in `rows` rows of a box `width` columns wide, long lines taking the rows they wrap to (one line at least). */
export function linesInRows(shown: OnScreen, width: number, rows: number): number {
  let used = 0;
  let fit = 0;
  for (const line of shown.lines) {
    used += screenRows(shown.presentation.kind === "command" ? `$ ${line}` : line, width);
    if (used > rows) break;
    fit++;
  }
  return Math.max(1, fit);
}

/** A presentation in at most `maxLines` lines, saying how to see the rest. */
export function PresentationView({ shown, maxLines }: { shown: OnScreen; maxLines: number }) {
  const { presentation, lines } = shown;
  const visible = lines.slice(0, maxLines);
  const hunks = firstHunk(lines);
  const hidden = lines.length - visible.length;
  const more = hidden > 0 || presentation.truncated || shown.cuts.length > 0;
  return (
    <Box flexDirection="column">
      {presentation.kind === "command" && presentation.cwd ? <Text dimColor>in {presentation.cwd}</Text> : null}
      {visible.map((line, i) =>
        presentation.kind === "diff" ? (
          <DiffLine key={i} line={line} header={i < hunks} />
        ) : (
          <Text key={i}>{presentation.kind === "command" ? `$ ${line}` : line}</Text>
        ),
      )}
      {more ? (
        <Text dimColor>
          … {hidden > 0 ? `${hidden} more line(s); ` : ""}press v to view the whole{presentation.truncated ? ` (${presentation.fullSize} characters)` : ""}
        </Text>
      ) : null}
    </Box>
  );
}
