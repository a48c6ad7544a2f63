import { Box, Text } from "ink";
import { LineEditor } from "./line-editor.js";

/** The line where a person types a prompt, a `!command` or a `/command`. */
export function InputLine({ onSubmit, hint }: { onSubmit(text: string): void; hint: string }) {
  return (
    <Box>
      <Text color="cyan">› </Text>
      <LineEditor placeholder={hint} onSubmit={(text) => text.trim() && onSubmit(text.trim())} />
    </Box>
  );
}
