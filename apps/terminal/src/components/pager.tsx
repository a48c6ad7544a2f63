import { Box, Text, useInput } from "ink";
import { useState } from "react";
import { DiffLine, firstHunk } from "./presentation-view.js";

export interface PagerProps {
  title: string;
  lines: string[];
  diff: boolean;
  height: number;
  onClose(): void;
}

/** A whole diff or command, a screen at a time: j/k, space/b, g/G, q or Esc to go back. */
export function Pager({ title, lines, diff, height, onClose }: PagerProps) {
  const page = Math.max(1, height);
  const last = Math.max(0, lines.length - page);
  const [top, setTop] = useState(0);
  const move = (to: number) => setTop(Math.max(0, Math.min(last, to)));
  useInput((input, key) => {
    if (input === "q" || key.escape) onClose();
    else if (input === "j" || key.downArrow || key.return) move(top + 1);
    else if (input === "k" || key.upArrow) move(top - 1);
    else if (input === " " || key.pageDown) move(top + page);
    else if (input === "b" || key.pageUp) move(top - page);
    else if (input === "g") move(0);
    else if (input === "G") move(last);
  });
  const shown = lines.slice(top, top + page);
  const hunks = firstHunk(lines);
  return (
    <Box flexDirection="column">
      <Text inverse>
        {" "}
        {title}: lines {lines.length === 0 ? 0 : top + 1}-{top + shown.length} of {lines.length} (j/k, space/b, g/G, q to go back){" "}
      </Text>
      {shown.map((line, i) => (diff ? <DiffLine key={top + i} line={line} header={top + i < hunks} /> : <Text key={top + i}>{line || " "}</Text>))}
    </Box>
  );
}
