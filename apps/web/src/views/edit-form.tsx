import type { ApprovalRequired, Decision } from "@gatehouse/protocol";
import { editableText, editedArguments, safeLine, safeText } from "@gatehouse/protocol/show";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Console } from "../console.js";
import { lineDiff } from "./line-diff.js";

type Checked = { edited: Record<string, unknown>; decision: Decision; suggestedPatterns: string[] };
type Scope = "once" | "session" | "always";

const MARK = { same: " ", removed: "-", added: "+" } as const;
const CLASS = { same: "d-ctx", removed: "d-del", added: "d-add" } as const;

/** The edited text against the original, line by line, escaped as any shown text. */
function EditDiff({ before, after }: { before: string; after: string }) {
  return (
    <pre class="diff shown" aria-label="Your edit against the original" data-testid="edit-diff">
      {lineDiff(before, after).map((line, i) => (
        <span key={i} class={CLASS[line.kind]}>
          {MARK[line.kind]} {safeLine(line.text)}
          {"\n"}
        </span>
      ))}
    </pre>
  );
}

/**
 * Approving a call with edited arguments: an edit field with its diff against the original; the
 * server checks the edited call (its schema, the gate's decision, whether it is critical), and the
 * person approves it as checked.
 */
export function EditForm({
  console: c,
  approval: a,
  onBack,
  ready,
  paused,
}: {
  console: Console;
  approval: ApprovalRequired;
  onBack: () => void;
  /** As the card's (see useAnswerPause): an approval of the edit waits out the pause too. */
  ready: boolean;
  paused: () => boolean;
}) {
  const original = editableText(a.toolName, a.arguments, true);
  const [text, setText] = useState(original);
  const [checked, setChecked] = useState<Checked | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [confirmed, setConfirmed] = useState(false);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => field.current?.focus(), []);
  const ref = { sessionId: a.sessionId, approvalId: a.approvalId };

  const edit = (value: string) => {
    setText(value);
    setChecked(null);
    setConfirmed(false);
  };
  const check = async () => {
    let edited: Record<string, unknown>;
    try {
      edited = editedArguments(a.toolName, a.arguments, text);
    } catch (err) {
      return setProblem((err as Error).message);
    }
    setBusy(true);
    const got = await c.call((cl) => cl.tool.checkEdit.query({ ...ref, editedArguments: edited }).catch((err: Error) => ({ error: err.message })));
    setBusy(false);
    if (!got) return;
    if ("error" in got) return setProblem(got.error);
    setProblem(null);
    setChecked({ edited, ...got });
  };
  const approve = async (scope: Scope) => {
    if (!checked || paused()) return;
    setBusy(true);
    const input = {
      ...ref,
      scope,
      editedArguments: checked.edited,
      ...(a.digest ? { digest: a.digest } : {}),
      ...(confirmed ? { confirmCritical: true } : {}),
    };
    // A refusal here (another answer came first) outlives this card, which goes with the approval: the console reports it.
    await c.call((cl) => cl.tool.approve.mutate(input));
    setBusy(false);
  };
  const critical = checked?.decision.critical ?? null;
  return (
    <form class="edit" onSubmit={(e) => (e.preventDefault(), void check())} onKeyDown={(e) => e.key === "Escape" && onBack()}>
      <label for={`${a.approvalId}-edit`}>{a.toolName === "shell_exec" ? "The command, as it should run" : "The arguments, as they should be (JSON)"}</label>
      <textarea
        id={`${a.approvalId}-edit`}
        ref={field}
        class="shown"
        rows={Math.min(12, text.split("\n").length + 1)}
        spellcheck={false}
        value={text}
        onInput={(e) => edit(e.currentTarget.value)}
      />
      <EditDiff before={original} after={text} />
      {problem && (
        <p class="critical" role="alert" data-testid="edit-problem">
          Not approved: {safeText(problem)}
        </p>
      )}
      {checked && (
        <dl class="why" data-testid="edit-check">
          <dt>Why the edited call asks</dt>
          <dd>{safeLine(checked.decision.reason)}</dd>
          {critical && (
            <>
              <dt>Critical pattern</dt>
              <dd class="critical">{safeLine(critical)}</dd>
            </>
          )}
        </dl>
      )}
      <div class="answers">
        {!checked && (
          <button type="submit" class="ok" disabled={busy}>
            Check the edited call
          </button>
        )}
        {checked && critical && (
          <label>
            <input type="checkbox" checked={confirmed} onChange={(e) => setConfirmed(e.currentTarget.checked)} /> Run it although it matches a critical pattern
          </label>
        )}
        {checked && (
          <button type="button" class="ok" disabled={busy || !ready || (critical !== null && !confirmed)} onClick={() => void approve("once")}>
            Approve edited, once
          </button>
        )}
        {checked && !critical && (
          <button type="button" class="ok" disabled={busy || !ready} onClick={() => void approve("session")}>
            Approve edited, for this session{checked.suggestedPatterns.length > 0 ? ` (${checked.suggestedPatterns.map(safeLine).join(", ")})` : ""}
          </button>
        )}
        {checked && !critical && checked.suggestedPatterns.length > 0 && (
          <button type="button" class="ok" disabled={busy || !ready} onClick={() => void approve("always")}>
            Approve edited, always ({checked.suggestedPatterns.map(safeLine).join(", ")})
          </button>
        )}
        <button type="button" class="quiet" onClick={onBack}>
          Back (Esc)
        </button>
      </div>
    </form>
  );
}
