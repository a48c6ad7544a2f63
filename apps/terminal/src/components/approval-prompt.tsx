import { approvalMark, describeMark, onceOnly, safeLine, safeText, type ApprovalRequired } from "@gatehouse/protocol";
import { Box, Text, useInput } from "ink";
import { useState } from "react";
import { describeCall, describeRule } from "@gatehouse/client-text";
import type { Answer } from "../session-controller.js";
import { AlwaysPatterns } from "./always-patterns.js";
import { EditAnswer, type EditAnswerProps } from "./edit-answer.js";
import { LineEditor } from "./line-editor.js";
import { onScreen, PresentationView } from "./presentation-view.js";

export interface ApprovalPromptProps {
  /** Pending approvals, oldest first; the first is the one being answered. */
  queue: ApprovalRequired[];
  onAnswer(approval: ApprovalRequired, answer: Answer): void;
  onView(approval: ApprovalRequired): void;
  /** What the gate makes of an edited call; without it, no edit is offered. */
  onCheckEdit?: EditAnswerProps["onCheck"];
  /** The person's editor (`$EDITOR`) for an edit; the line editor when absent. */
  editor?: string | undefined;
  previewLines?: number;
  /** Subagent session ids and their agent types: an approval of theirs says whose it is. */
  subagents?: Record<string, string>;
}

type Stage = "keys" | "patterns" | "feedback" | "edit";

/** The answers the server takes for this call: a call approved once only offers neither `s` nor `a`, and says why. */
function Keys({ approval, editable }: { approval: ApprovalRequired; editable: boolean }) {
  const limit = onceOnly(approval);
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
          session{" "}
          <Text bold color="green">
            a
          </Text>{" "}
          always ({approval.suggestedPatterns.map((p) => safeLine(p)).join(", ")}){" "}
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

function Batch({ approval }: { approval: ApprovalRequired }) {
  const { index, total, remaining } = approval.batch;
  if (total <= 1) return null;
  const next = remaining.map((r) => describeCall(r.toolName, r.arguments, 50)).join(", ");
  return (
    <Text dimColor>
      call {index + 1} of {total} in this batch{next ? `; after it: ${next}` : ""}
    </Text>
  );
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
export function ApprovalPrompt({ queue, onAnswer, onView, onCheckEdit, editor, previewLines = 16, subagents = {} }: ApprovalPromptProps) {
  const current = queue[0]!;
  const editable = current.editable === true && onCheckEdit !== undefined;
  const [stage, setStage] = useState<Stage>("keys");
  useInput(
    (input) => {
      const remembers = onceOnly(current) === null;
      if (input === "y") onAnswer(current, { kind: "approve", scope: "once" });
      else if (input === "s" && remembers) onAnswer(current, { kind: "approve", scope: "session" });
      else if (input === "a" && remembers) setStage("patterns");
      else if (input === "n") setStage("feedback");
      else if (input === "N") onAnswer(current, { kind: "deny", mode: "hard" });
      else if (input === "v") onView(current);
      else if (input === "e" && editable) setStage("edit");
    },
    { isActive: stage === "keys" },
  );
  const back = () => setStage("keys");
  const rule = describeRule(current.decision);
  const others = queue.slice(1);
  const shown = current.presentation ? onScreen(current.presentation) : null;
  const mark = describeMark(approvalMark(current, shown?.cuts));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text>
        <Text bold color="yellow">
          approval{queue.length > 1 ? ` 1 of ${queue.length}` : ""}
        </Text>{" "}
        <Text bold>{safeLine(current.toolName)}</Text> <Text dimColor>tier {current.tier}</Text>
        {subagents[current.sessionId] ? <Text color="magenta"> from subagent {safeLine(subagents[current.sessionId]!)}</Text> : null}
      </Text>
      <Text>why: {safeText(current.reason)}</Text>
      {rule && !current.reason.includes(`${current.decision.rule?.file}:${current.decision.rule?.line}:`) ? <Text dimColor>rule: {rule}</Text> : null}
      {current.decision.critical ? <Text color="red">critical: {safeLine(current.decision.critical)}</Text> : null}
      <Batch approval={current} />
      <Box marginY={1}>
        {shown ? <PresentationView shown={shown} maxLines={previewLines} /> : <Text>{describeCall(current.toolName, current.arguments, 300)}</Text>}
      </Box>
      <Mark lines={mark} />
      {stage === "keys" ? <Keys approval={current} editable={editable} /> : null}
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
          {others.map((o) => (
            <Text key={o.approvalId} dimColor>
              {" "}
              {describeCall(o.toolName, o.arguments, 80)}
            </Text>
          ))}
        </Box>
      ) : null}
    </Box>
  );
}
