import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { editableText, editedArguments, safeLine, safeText, type ApprovalRequired } from "@gatehouse/protocol";
import { Box, Text, useInput } from "ink";
import { useEffect, useState } from "react";
import type { Answer, EditCheck } from "../session-controller.js";
import { LineEditor } from "./line-editor.js";

export interface EditAnswerProps {
  approval: ApprovalRequired;
  onCheck(approval: ApprovalRequired, edited: Record<string, unknown>): Promise<EditCheck>;
  onAnswer(approval: ApprovalRequired, answer: Answer): void;
  onBack(): void;
  /** The person's editor (`$EDITOR`); the line editor when absent. */
  editor?: string | undefined;
}

type Checked = Exclude<EditCheck, { error: string }>;
type Step =
  | { kind: "typing"; text: string; error?: string; attempt: number }
  | { kind: "checking" }
  | { kind: "checked"; edited: Record<string, unknown>; text: string; check: Checked };

/** Edits `text` in the person's editor, the terminal handed over meanwhile; null when the editor failed. */
function inEditor(editor: string, text: string, toolName: string): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-edit-"));
  const file = path.join(dir, toolName === "shell_exec" ? "command.sh" : "arguments.json");
  try {
    fs.writeFileSync(file, `${text}\n`, { mode: 0o600 });
    const raw = process.stdin.isTTY && process.stdin.isRaw;
    if (raw) process.stdin.setRawMode(false);
    const ran = spawnSync("/bin/sh", ["-c", `${editor} "$1"`, "editor", file], { stdio: "inherit" });
    if (raw) process.stdin.setRawMode(true);
    return ran.status === 0 ? fs.readFileSync(file, "utf8") : null;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A call's arguments over several lines for an editor; a shell command, or text that is no JSON yet, as it is. */
function forEditor(toolName: string, text: string): string {
  if (toolName === "shell_exec") return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function CheckedKeys({ check }: { check: Checked }) {
  if (check.decision.critical)
    return (
      <Text>
        <Text bold color="red">
          Y
        </Text>{" "}
        run it once, confirming the critical pattern <Text bold>e</Text> edit again <Text bold>Esc</Text> back
      </Text>
    );
  const patterns = check.suggestedPatterns.map(safeLine).join(", ");
  return (
    <Text>
      <Text bold color="green">
        y
      </Text>{" "}
      once{" "}
      <Text bold color="green">
        s
      </Text>{" "}
      session{patterns ? " or" : ""}{" "}
      {patterns ? (
        <>
          <Text bold color="green">
            a
          </Text>{" "}
          always ({patterns}){" "}
        </>
      ) : null}
      <Text bold>e</Text> edit again <Text bold>Esc</Text> back
    </Text>
  );
}

/** Approving a call with edited arguments: edit them, see what the gate makes of the edited call, then approve it. */
export function EditAnswer({ approval, onCheck, onAnswer, onBack, editor }: EditAnswerProps) {
  const original = editableText(approval.toolName, approval.arguments);
  const [step, setStep] = useState<Step>({ kind: "typing", text: original, attempt: 0 });
  const [attempts, setAttempts] = useState(0);
  const refused = (text: string, error: string) => {
    setAttempts((n) => n + 1);
    setStep({ kind: "typing", text, error, attempt: attempts + 1 });
  };
  const check = (text: string) => {
    let edited: Record<string, unknown>;
    try {
      edited = editedArguments(approval.toolName, approval.arguments, text);
    } catch (err) {
      return refused(text, (err as Error).message);
    }
    const shown = editableText(approval.toolName, JSON.stringify(edited));
    setStep({ kind: "checking" });
    void onCheck(approval, edited).then((got) => ("error" in got ? refused(shown, got.error) : setStep({ kind: "checked", edited, text: shown, check: got })));
  };
  const openEditor = (text: string) => {
    const got = inEditor(editor!, forEditor(approval.toolName, text), approval.toolName);
    if (got === null) refused(text, `the editor (${editor}) failed; nothing was changed`);
    else check(got);
  };
  useEffect(() => {
    if (editor) openEditor(original);
    // The editor opens once, as the edit begins; later it opens on `e`.
  }, []);
  useInput(
    (input, key) => {
      if (key.escape) return onBack();
      if (step.kind !== "checked") return input === "e" && editor && step.kind === "typing" ? openEditor(step.text) : undefined;
      const answer = { kind: "approve", edited: step.edited } as const;
      if (input === "e") return editor ? openEditor(step.text) : setStep({ kind: "typing", text: step.text, attempt: attempts });
      else if (step.check.decision.critical) {
        if (input === "Y") onAnswer(approval, { ...answer, scope: "once", confirmCritical: true });
      } else if (input === "y") onAnswer(approval, { ...answer, scope: "once" });
      else if (input === "s") onAnswer(approval, { ...answer, scope: "session" });
      else if (input === "a" && step.check.suggestedPatterns.length > 0) onAnswer(approval, { ...answer, scope: "always" });
    },
    { isActive: step.kind === "checked" || (step.kind === "typing" && Boolean(editor)) },
  );
  if (step.kind === "checking") return <Text dimColor>checking the edited call…</Text>;
  if (step.kind === "typing")
    return (
      <Box flexDirection="column">
        {step.error ? <Text color="red">not approved: {safeText(step.error)}</Text> : null}
        {editor ? (
          <Text>
            <Text bold>e</Text> opens the editor again <Text bold>Esc</Text> back
          </Text>
        ) : (
          <Box>
            <Text>edit {approval.toolName === "shell_exec" ? "the command" : "the arguments (JSON)"} (Enter checks it, Esc goes back): </Text>
            <LineEditor key={step.attempt} initial={step.text} onCancel={onBack} onSubmit={check} />
          </Box>
        )}
      </Box>
    );
  return (
    <Box flexDirection="column">
      <Text bold>edited call:</Text>
      <Text color="red">- {safeLine(original)}</Text>
      <Text color="green">+ {safeLine(step.text)}</Text>
      <Text>why it asks: {safeLine(step.check.decision.reason)}</Text>
      {step.check.decision.critical ? <Text color="red">critical: {safeLine(step.check.decision.critical)}</Text> : null}
      <CheckedKeys check={step.check} />
    </Box>
  );
}
