import { safeLine } from "@gatehouse/protocol";
import { Text, useInput } from "ink";
import { useRef, useState } from "react";

export interface LineEditorProps {
  initial?: string;
  placeholder?: string;
  onSubmit(value: string): void;
  onCancel?(): void;
}

/**
 * One line of text input. Keys are read character by character, so text pasted (or sent by
 * tmux) in one chunk with its Enter is taken as typed; the value lives in a ref so that chunks
 * arriving between two renders are not lost.
 */
export function LineEditor({ initial = "", placeholder = "", onSubmit, onCancel }: LineEditorProps) {
  const value = useRef(initial);
  const [, setShown] = useState(initial);
  const submit = () => {
    const submitted = value.current;
    value.current = "";
    onSubmit(submitted);
  };
  useInput((input, key) => {
    if (key.escape) return onCancel?.();
    if (key.return) submit();
    else if (key.backspace || key.delete) value.current = value.current.slice(0, -1);
    else if (!key.ctrl && !key.meta && !key.upArrow && !key.downArrow && !key.leftArrow && !key.rightArrow && !key.tab) {
      for (const ch of input) {
        if (ch === "\r" || ch === "\n") submit();
        else if (ch === "\x7f" || ch === "\b") value.current = value.current.slice(0, -1);
        else if (ch >= " ") value.current += ch;
      }
    }
    setShown(value.current);
  });
  return (
    <Text>
      {value.current === "" && placeholder ? <Text dimColor>{placeholder}</Text> : safeLine(value.current)}
      <Text inverse> </Text>
    </Text>
  );
}
