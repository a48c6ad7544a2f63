import type { Presentation } from "@gatehouse/protocol";
import { Box, Text } from "ink";

/** One line of a unified diff, coloured by what it does. */
export function DiffLine({ line }: { line: string }) {
  if (line.startsWith("+++") || line.startsWith("---")) return <Text bold>{line}</Text>;
  if (line.startsWith("+")) return <Text color="green">{line}</Text>;
  if (line.startsWith("-")) return <Text color="red">{line}</Text>;
  if (line.startsWith("@@")) return <Text color="cyan">{line}</Text>;
  return <Text>{line || " "}</Text>;
}

/** A presentation in at most `maxLines` lines, saying how to see the rest. */
export function PresentationView({ presentation, maxLines }: { presentation: Presentation; maxLines: number }) {
  const lines = presentation.content.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, maxLines);
  const hidden = lines.length - shown.length;
  return (
    <Box flexDirection="column">
      {presentation.kind === "command" && presentation.cwd ? <Text dimColor>in {presentation.cwd}</Text> : null}
      {shown.map((line, i) =>
        presentation.kind === "diff" ? <DiffLine key={i} line={line} /> : <Text key={i}>{presentation.kind === "command" ? `$ ${line}` : line}</Text>,
      )}
      {hidden > 0 || presentation.truncated ? (
        <Text dimColor>
          … {hidden > 0 ? `${hidden} more line(s); ` : ""}press v to view the whole{presentation.truncated ? ` (${presentation.fullSize} characters)` : ""}
        </Text>
      ) : null}
    </Box>
  );
}
