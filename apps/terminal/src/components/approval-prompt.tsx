import { ANSWER_PAUSE_MS, approvalMark, describeMark, onceOnly, safeLine, type ApprovalRequired, type Cut } from "@gatehouse/protocol";
import { Box, Text, useInput } from "ink";
import { useEffect, useState } from "react";
import { describeCall, describeRule } from "@gatehouse/client-text";
import type { Answer } from "../session-controller.js";
import { AlwaysPatterns } from "./always-patterns.js";
import { EditAnswer, type EditAnswerProps } from "./edit-answer.js";
import { LineEditor } from "./line-editor.js";
import { linesInRows, onScreen, PresentationView, type OnScreen } from "./presentation-view.js";
import { screenRows } from "./screen-rows.js";

export interface ApprovalPromptProps {
  /** Pending approvals, oldest first; the first is the one being answered. */
  queue: ApprovalRequired[];
  onAnswer(approval: ApprovalRequired, answer: Answer): void;
  onView(approval: ApprovalRequired): void;
  /** What the gate makes of an edited call; without it, no edit is offered. */
  onCheckEdit?: EditAnswerProps["onCheck"];
  /** The person's editor (`$EDITOR`) for an edit; the line editor when absent. */
  editor?: string | undefined;
  /** Rows of the screen the preview and the mark may take. */
  previewLines?: number;
  /** The screen's width: a long line takes the rows it wraps to, so that the prompt keeps within the screen. */
  columns?: number;
  /** Subagent session ids and their agent types: an approval of theirs says whose it is. */
  subagents?: Record<string, string>;
  /**
   * The call came to the front while the person typed into the one before it (its feedback, edit
   * or patterns), which another client answered: keys are held until Enter, so that the rest of
   * what they type answers nothing.
   */
  held?: boolean;
  /** Told whether the person is typing text into this prompt (feedback, an edit, patterns). */
  onTyping?(typing: boolean): void;
}

type Stage = "keys" | "patterns" | "feedback" | "edit" | "held";

/** The answers the server takes for this call, each with what it allows: a call approved once only offers neither `s` nor `a`, and says why. */
function Keys({ approval, editable }: { approval: ApprovalRequired; editable: boolean }) {
  const limit = onceOnly(approval);
  // A session answer allows what these patterns match, as "always" does: the keys say so together.
  const patterns = approval.suggestedPatterns.map((p) => safeLine(p)).join(", ");
  return (
    <Text>
      <Text bold color="green">
        y
      </Text>{" "}
      once{" "}
      {limit ? (
        <Text dimColor>({limit}) </Text>
      ) : (
        <>
          <Text bold color="green">
            s
          </Text>{" "}
          session or{" "}
          <Text bold color="green">
            a
          </Text>{" "}
          always ({patterns}){" "}
        </>
      )}
      <Text bold color="red">
        n
      </Text>{" "}
      deny with feedback{" "}
      <Text bold color="red">
        N
      </Text>{" "}
      deny hard <Text bold>v</Text> view
      {editable ? (
        <>
          {" "}
          <Text bold color="green">
            e
          </Text>{" "}
          edit
        </>
      ) : null}
    </Text>
  );
}

/** How many of the calls that follow, or wait, a prompt names: the rest is a count, so the prompt fits the screen. */
const LISTED = 3;
const andMore = (n: number) => (n > 0 ? `, and ${n} more` : "");

function Batch({ approval }: { approval: ApprovalRequired }) {
  const { index, total, remaining } = approval.batch;
  if (total <= 1) return null;
  const next = remaining
    .slice(0, LISTED)
    .map((r) => describeCall(r.toolName, r.arguments, 50))
    .join(", ")
    .concat(andMore(remaining.length - LISTED));
  return (
    <Text dimColor>
      call {index + 1} of {total} in this batch{next ? `; after it: ${next}` : ""}
    </Text>
  );
}

/** The lines a preview of `rows` lines leaves out, as a cut for the mark: a dim note under the preview is easily missed. */
function previewCut(shown: OnScreen | null, rows: number): Cut[] {
  const left = (shown?.lines.length ?? 0) - rows;
  return left > 0 ? [{ line: rows + 1, lastLine: rows + left, what: `${left} more line${left === 1 ? "" : "s"}` }] : [];
}

/** What a person must know before answering: hidden characters, look-alike letters, what is out of sight. */
function Mark({ lines }: { lines: string[] }) {
  return (
    <>
      {lines.map((line) => (
        <Text key={line} bold color="red">
          ⚠ {line}
        </Text>
      ))}
    </>
  );
}

/** The approval prompt: what asks and why, what it would do, and the keys to answer it. */
export function ApprovalPrompt({
  queue,
  onAnswer,
  onView,
  onCheckEdit,
  editor,
  previewLines = 16,
  columns = 80,
  subagents = {},
  held = false,
  onTyping,
}: ApprovalPromptProps) {
  const current = queue[0]!;
  const editable = current.editable === true && onCheckEdit !== undefined;
  const [stage, setStage] = useState<Stage>(held ? "held" : "keys");
  useEffect(() => {
    onTyping?.(stage === "feedback" || stage === "edit" || stage === "patterns");
  }, [stage]);
  // The prompt is drawn anew for each call (its key is the approval): a key meant for the call before, pressed twice, answers nothing here.
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setReady(true), ANSWER_PAUSE_MS);
    return () => clearTimeout(timer);
  }, []);
  useInput((_input, key) => (key.return ? setStage("keys") : undefined), { isActive: stage === "held" });
  useInput(
    (input) => {
      const remembers = onceOnly(current) === null;
      if (input === "v") onView(current);
      else if (!ready) return;
      else if (input === "y") onAnswer(current, { kind: "approve", scope: "once" });
      else if (input === "s" && remembers) onAnswer(current, { kind: "approve", scope: "session" });
      else if (input === "a" && remembers) setStage("patterns");
      else if (input === "n") setStage("feedback");
      else if (input === "N") onAnswer(current, { kind: "deny", mode: "hard" });
      else if (input === "e" && editable) setStage("edit");
    },
    { isActive: stage === "keys" },
  );
  const back = () => setStage("keys");
  const rule = describeRule(current.decision);
  const others = queue.slice(1);
  const listed = others.slice(0, LISTED);
  const shown = current.presentation ? onScreen(current.presentation) : null;
  // The waiting list and the mark take rows of their own (the mark one more for the lines the
  // preview leaves out): the preview shrinks, so that the call being answered stays on screen.
  const waitingRows = others.length > 0 ? listed.length + (others.length > LISTED ? 3 : 2) : 0;
  // Rows, not lines: a long line wraps, and a prompt taller than the screen scrolls its top (the call's first lines) out of sight.
  const width = columns - 4;
  const markRows = describeMark(approvalMark(current, shown?.cuts)).reduce((n, line) => n + screenRows(`⚠ ${line}`, width), 0);
  const previewRows = Math.max(4, previewLines - waitingRows - markRows - 1);
  const preview = shown ? linesInRows(shown, width, previewRows) : 0;
  const mark = describeMark(approvalMark(current, [...(shown?.cuts ?? []), ...previewCut(shown, preview)]));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text>
        <Text bold color="yellow">
          approval{queue.length > 1 ? ` 1 of ${queue.length}` : ""}
        </Text>{" "}
        <Text bold>{safeLine(current.toolName)}</Text> <Text dimColor>tier {current.tier}</Text>
        {subagents[current.sessionId] ? <Text color="magenta"> from subagent {safeLine(subagents[current.sessionId]!)}</Text> : null}
      </Text>
      <Text>why: {safeLine(current.reason)}</Text>
      {rule && !current.reason.includes(`${current.decision.rule?.file}:${current.decision.rule?.line}:`) ? <Text dimColor>rule: {rule}</Text> : null}
      {current.decision.critical ? <Text color="red">critical: {safeLine(current.decision.critical)}</Text> : null}
      <Batch approval={current} />
      <Box marginY={1}>
        {shown ? <PresentationView shown={shown} maxLines={preview} /> : <Text>{describeCall(current.toolName, current.arguments, 300)}</Text>}
      </Box>
      <Mark lines={mark} />
      {stage === "held" ? (
        <Text bold color="red">
          ⚠ the call you were typing an answer to was answered elsewhere; this is another call. Enter shows its keys (what you type until then answers nothing)
        </Text>
      ) : null}
      {stage === "keys" && ready ? <Keys approval={current} editable={editable} /> : null}
      {stage === "keys" && !ready ? <Text dimColor>keys in a moment (v shows it whole)</Text> : null}
      {stage === "edit" && onCheckEdit ? <EditAnswer approval={current} onCheck={onCheckEdit} onAnswer={onAnswer} onBack={back} editor={editor} /> : null}
      {stage === "patterns" ? (
        <AlwaysPatterns
          suggested={current.suggestedPatterns}
          onCancel={back}
          onSave={(patterns) => onAnswer(current, { kind: "approve", scope: "always", patterns })}
        />
      ) : null}
      {stage === "feedback" ? (
        <Box>
          <Text>feedback for the model (Enter denies, Esc goes back): </Text>
          <LineEditor
            onCancel={back}
            onSubmit={(value) => onAnswer(current, { kind: "deny", mode: "soft", ...(value.trim() ? { feedback: value.trim() } : {}) })}
          />
        </Box>
      ) : null}
      {others.length > 0 ? (
        <Box flexDirection="column" marginTop={1}>
          <Text dimColor>waiting after this one:</Text>
          {listed.map((o) => (
            <Text key={o.approvalId} dimColor>
              {" "}
              {describeCall(o.toolName, o.arguments, 80)}
            </Text>
          ))}
          {others.length > LISTED ? <Text dimColor> … and {others.length - LISTED} more</Text> : null}
        </Box>
      ) : null}
    </Box>
  );
}
