import { safeLine } from "@gatehouse/protocol";
import { Text, useInput, type Key } from "ink";
import { useRef, useState } from "react";

export interface LineEditorProps {
  initial?: string;
  placeholder?: string;
  onSubmit(value: string): void;
  onCancel?(): void;
}

/**
 * One chunk of keys applied to a line: printable characters are added, Backspace takes the last
 * one off, and each Enter hands the line so far to `enter`, whose answer is the line after it.
 * Keys are read character by character, so text pasted (or sent by tmux) in one chunk with its
 * Enter is taken as typed.
 */
export function typeInto(line: string, input: string, key: Key, enter: (line: string) => string): string {
  if (key.return) return enter(line);
  if (key.backspace || key.delete) return line.slice(0, -1);
  if (key.ctrl || key.meta || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.tab) return line;
  let value = line;
  for (const ch of input) {
    if (ch === "\r" || ch === "\n") value = enter(value);
    else if (ch === "\x7f" || ch === "\b") value = value.slice(0, -1);
    else if (ch >= " ") value += ch;
  }
  return value;
}

/** One line of text input; the value lives in a ref so that chunks arriving between two renders are not lost. */
export function LineEditor({ initial = "", placeholder = "", onSubmit, onCancel }: LineEditorProps) {
  const value = useRef(initial);
  const [, setShown] = useState(initial);
  useInput((input, key) => {
    if (key.escape) return onCancel?.();
    value.current = typeInto(value.current, input, key, (line) => (onSubmit(line), ""));
    setShown(value.current);
  });
  return (
    <Text>
      {value.current === "" && placeholder ? <Text dimColor>{placeholder}</Text> : safeLine(value.current)}
      <Text inverse> </Text>
    </Text>
  );
}
