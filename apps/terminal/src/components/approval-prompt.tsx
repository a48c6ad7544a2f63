import { approvalMark, describeMark, safeLine, safeText, type ApprovalRequired } from "@gatehouse/protocol";
import { Box, Text, useInput } from "ink";
import { useState } from "react";
import { describeCall, describeRule } from "@gatehouse/client-text";
import type { Answer } from "../session-controller.js";
import { LineEditor } from "./line-editor.js";
import { onScreen, PresentationView } from "./presentation-view.js";

export interface ApprovalPromptProps {
  /** Pending approvals, oldest first; the first is the one being answered. */
  queue: ApprovalRequired[];
  onAnswer(approval: ApprovalRequired, answer: Answer): void;
  onView(approval: ApprovalRequired): void;
  previewLines?: number;
  /** Subagent session ids and their agent types: an approval of theirs says whose it is. */
  subagents?: Record<string, string>;
}

type Stage = "keys" | "pattern" | "feedback";

/** Why no "always" is offered: a critical call is approved once at most; otherwise no pattern would be narrow enough. */
const noAlways = (a: ApprovalRequired) => (a.decision.critical ? "no always: critical, once at most" : "no always: no narrow pattern");

function Keys({ pattern, without }: { pattern: string; without: string }) {
  return (
    <Text>
      <Text bold color="green">
        y
      </Text>{" "}
      once{" "}
      <Text bold color="green">
        s
      </Text>{" "}
      session{" "}
      {pattern ? (
        <>
          <Text bold color="green">
            a
          </Text>{" "}
          always ({safeLine(pattern)}){" "}
        </>
      ) : (
        <Text dimColor>({without}) </Text>
      )}
      <Text bold color="red">
        n
      </Text>{" "}
      deny with feedback{" "}
      <Text bold color="red">
        N
      </Text>{" "}
      deny hard <Text bold>v</Text> view
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
export function ApprovalPrompt({ queue, onAnswer, onView, previewLines = 16, subagents = {} }: ApprovalPromptProps) {
  const current = queue[0]!;
  const [stage, setStage] = useState<Stage>("keys");
  useInput(
    (input) => {
      if (input === "y") onAnswer(current, { kind: "approve", scope: "once" });
      else if (input === "s") onAnswer(current, { kind: "approve", scope: "session" });
      else if (input === "a" && current.suggestedPattern) setStage("pattern");
      else if (input === "n") setStage("feedback");
      else if (input === "N") onAnswer(current, { kind: "deny", mode: "hard" });
      else if (input === "v") onView(current);
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
      {stage === "keys" ? <Keys pattern={current.suggestedPattern} without={noAlways(current)} /> : null}
      {stage === "pattern" ? (
        <Box>
          <Text>always allow pattern (Enter saves, Esc goes back): </Text>
          <LineEditor
            initial={current.suggestedPattern}
            onCancel={back}
            onSubmit={(value) => value.trim() && onAnswer(current, { kind: "approve", scope: "always", pattern: value.trim() })}
          />
        </Box>
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
