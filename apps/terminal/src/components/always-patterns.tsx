import { safeLine } from "@gatehouse/protocol";
import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { typeInto } from "./line-editor.js";

export interface AlwaysPatternsProps {
  /** Every pattern "always" would save, as the server suggests them. */
  suggested: string[];
  /** The patterns as the person left them, emptied ones dropped; never called with none. */
  onSave(patterns: string[]): void;
  onCancel(): void;
}

/**
 * "Always": every pattern that will be saved, each editable. ↑/↓ (or Tab) picks the line being
 * edited, Enter saves them all, Esc goes back; a line emptied is not saved, and nothing is saved
 * while every line is empty.
 */
export function AlwaysPatterns({ suggested, onSave, onCancel }: AlwaysPatternsProps) {
  // Refs, so that keys arriving between two renders all count; a change asks for a render.
  const lines = useRef([...suggested]);
  const current = useRef(0);
  const [, redraw] = useState(0);
  const save = () => {
    const kept = lines.current.map((p) => p.trim()).filter(Boolean);
    if (kept.length > 0) onSave(kept);
  };
  const move = (by: number) => {
    current.current = (current.current + by + lines.current.length) % lines.current.length;
    redraw((n) => n + 1);
  };
  useInput((input, key) => {
    if (key.escape) return onCancel();
    if (key.upArrow) return move(-1);
    if (key.downArrow || key.tab) return move(1);
    const i = current.current;
    lines.current[i] = typeInto(lines.current[i]!, input, key, (line) => ((lines.current[i] = line), save(), line));
    redraw((n) => n + 1);
  });
  const at = current.current;
  return (
    <Box flexDirection="column">
      <Text>always allow {lines.current.length > 1 ? `these ${lines.current.length} patterns` : "this pattern"} (saved to the rules file):</Text>
      {lines.current.map((p, i) => (
        <Text key={i}>
          {i === at ? <Text color="green">› </Text> : "  "}
          {safeLine(p)}
          {i === at ? <Text inverse> </Text> : null}
        </Text>
      ))}
      <Text dimColor>{lines.current.length > 1 ? "↑/↓ picks the one to edit, " : ""}Enter saves, Esc goes back</Text>
    </Box>
  );
}
