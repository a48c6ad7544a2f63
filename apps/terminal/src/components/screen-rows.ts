import wrapAnsi from "wrap-ansi";

/** The rows `line` takes in a box `width` columns wide, wrapped as Ink wraps a text. */
export function screenRows(line: string, width: number): number {
  return wrapAnsi(line, Math.max(1, width), { trim: false, hard: true }).split("\n").length;
}
