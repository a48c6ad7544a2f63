import type { ApprovalRequired, Presentation } from "@gatehouse/protocol";
import { approvalMark, describeMark, onceOnly, safeArguments, safeLine, safePresentation } from "@gatehouse/protocol/show";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Console } from "../console.js";
import { EditForm } from "./edit-form.js";
import { cardText, PresentationView } from "./presentation.js";

type Stage = "choose" | "always" | "deny" | "edit";

export interface CardKeys {
  (key: string): boolean;
}

/** Where the deciding rule came from: `permissions.jsonc:12:5 (static layer)`; null when there is none, or the reason names it already. */
function ruleSource(a: ApprovalRequired): string | null {
  const r = a.decision.rule;
  if (!r || a.reason.includes(`rule ${r.tool} "${r.pattern}"`)) return null;
  const at = r.file ? `${r.file}${r.line ? `:${r.line}:${r.column ?? 1}` : ""}` : `${r.origin === "approval" ? "an earlier approval" : "a rule"}`;
  return safeLine(`${r.tool} "${r.pattern}" → ${r.action}, ${at} (${r.layer} layer)`);
}

/**
 * One pending approval: what the call is, why it asks, where it sits in its batch, what it would
 * do, and the answers. Keys as in the terminal: y s a n N v e.
 */
export function ApprovalCard({
  console: c,
  approval: a,
  selected,
  position,
  register,
  ready,
  paused,
  onSelect,
}: {
  console: Console;
  approval: ApprovalRequired;
  selected: boolean;
  position: { index: number; total: number };
  register: (id: string, keys: CardKeys | null) => void;
  /** Whether answers reach the card yet (see useAnswerPause); `paused` says so when one comes. */
  ready: boolean;
  paused: () => boolean;
  onSelect: () => void;
}) {
  const [stage, setStage] = useState<Stage>("choose");
  const [patterns, setPatterns] = useState<string[]>(() => a.suggestedPatterns);
  const [feedback, setFeedback] = useState("");
  const [whole, setWhole] = useState<Presentation | null>(null);
  const [busy, setBusy] = useState(false);
  const firstField = useRef<HTMLInputElement>(null);
  const ref = useRef<HTMLElement>(null);
  const session = c.state.sessions.get(a.sessionId);
  const agentPath = c.state.agentPath(a.sessionId);
  const labelId = `approval-${a.approvalId}-title`;
  const mayAnswer = c.may(session?.workerId ?? "", "use");
  const limit = onceOnly(a);

  const answered = (applied: boolean | undefined) => {
    setBusy(false);
    if (applied === false) {
      c.report(new Error(`${a.toolName} was answered elsewhere first (or is no longer pending); your answer was not applied`));
      c.forget(a.approvalId);
    }
  };
  // Every answer, from a key, a button or a form, waits out the pause (the button may not show
  // disabled yet). A card already gone answers as before: the server tells the loser of a race.
  const waiting = () => ref.current?.isConnected === true && paused();
  const approve = async (scope: "once" | "session" | "always") => {
    if (waiting()) return;
    setBusy(true);
    const kept = patterns.map((p) => p.trim()).filter(Boolean);
    const input = {
      sessionId: a.sessionId,
      approvalId: a.approvalId,
      scope,
      ...(scope === "always" && kept.length > 0 ? { patterns: kept } : {}),
      ...(a.digest ? { digest: a.digest } : {}),
    };
    const out = await c.call((cl) => cl.tool.approve.mutate(input));
    answered(out?.applied);
  };
  const deny = async (mode: "soft" | "hard") => {
    if (waiting()) return;
    setBusy(true);
    const out = await c.call((cl) =>
      cl.tool.deny.mutate({ sessionId: a.sessionId, approvalId: a.approvalId, mode, ...(feedback.trim() ? { feedback: feedback.trim() } : {}) }),
    );
    answered(out?.applied);
  };
  const viewWhole = async () => {
    if (whole) return setWhole(null);
    const got = await c.call((cl) => cl.tool.view.query({ sessionId: a.sessionId, approvalId: a.approvalId }));
    if (got) setWhole(got);
  };
  const back = () => {
    setStage("choose");
    ref.current?.focus();
  };

  useEffect(() => {
    if (stage !== "choose") firstField.current?.focus();
  }, [stage]);

  /** A click that opens an answer's form, taken only once the cards have stood still. */
  const opening = (next: Stage) => () => {
    if (!waiting()) setStage(next);
  };
  const keys: CardKeys = (key) => {
    if (busy || stage !== "choose" || !mayAnswer) return false;
    if (key === "v") void viewWhole();
    else if (waiting()) return false;
    else if (key === "y") void approve("once");
    else if (key === "s" && !limit) void approve("session");
    else if (key === "a" && !limit) setStage("always");
    else if (key === "n") setStage("deny");
    else if (key === "N") void deny("hard");
    else if (key === "e" && a.editable) setStage("edit");
    else return false;
    return true;
  };
  // Registered as the card is put on screen: a key typed at once reaches it (and waits out the pause), not the card before.
  useLayoutEffect(() => {
    register(a.approvalId, keys);
    return () => register(a.approvalId, null);
  });

  const shown = a.presentation ? safePresentation(whole ?? a.presentation) : null;
  const fitted = shown ? cardText(shown, whole !== null) : null;
  const mark = describeMark(approvalMark(a, fitted?.cuts));
  const outOfSight = (fitted?.cuts.length ?? 0) > 0;
  const cut = a.presentation?.truncated ? ` (cut; ${a.presentation.fullSize} characters in all)` : "";
  const source = ruleSource(a);
  return (
    <article
      ref={ref}
      class={`card${selected ? " selected" : ""}`}
      aria-labelledby={labelId}
      tabIndex={0}
      onFocusCapture={onSelect}
      data-approval={a.approvalId}
      data-tool={a.toolName}
      data-ready={ready && mayAnswer ? "" : undefined}
    >
      <header>
        <h3 id={labelId}>
          <span class="tool">
            {agentPath ? `${safeLine(agentPath)} › ` : ""}
            {safeLine(a.toolName)}
          </span>{" "}
          <span class={`tier tier-${a.tier}`}>{a.tier}</span>
        </h3>
        <span class="where">
          {position.total > 1 ? `${position.index} of ${position.total} · ` : ""}
          <a href={`#/sessions/${encodeURIComponent(a.sessionId)}`}>session {a.sessionId.slice(0, 8)}</a>
          {session ? ` on ${session.workerId}` : ""}
        </span>
      </header>
      <dl class="why">
        <dt>Why it asks</dt>
        <dd>{safeLine(a.reason)}</dd>
        {source && (
          <>
            <dt>Rule</dt>
            <dd>{source}</dd>
          </>
        )}
        {a.decision.critical && (
          <>
            <dt>Critical pattern</dt>
            <dd class="critical">{safeLine(a.decision.critical)}</dd>
          </>
        )}
        {a.batch.total > 1 && (
          <>
            <dt>Batch</dt>
            <dd>
              call {a.batch.index + 1} of {a.batch.total}
              {a.batch.remaining.length > 0 && <> · then {a.batch.remaining.map((r) => safeLine(r.toolName)).join(", ")}</>}
            </dd>
          </>
        )}
      </dl>
      {shown && fitted ? <PresentationView p={shown} text={fitted.text} /> : <pre class="args shown">{safeArguments(a.arguments, 2)}</pre>}
      {mark.length > 0 && (
        <ul class="mark" aria-label="Before you answer" data-testid="mark">
          {mark.map((line) => (
            <li key={line}>⚠ {line}</li>
          ))}
        </ul>
      )}
      {a.presentation && (a.presentation.truncated || whole || outOfSight) && (
        <p class="cut">
          {whole ? "Showing the whole presentation." : `Shown in part${cut}.`}{" "}
          <button type="button" class="quiet" onClick={() => void viewWhole()} aria-keyshortcuts="v">
            {whole ? "Show less" : "Show all (v)"}
          </button>
        </p>
      )}
      {!mayAnswer && <p class="note">This token may watch this approval but not answer it.</p>}
      {stage === "choose" && mayAnswer && (
        <div class="answers" role="group" aria-label="Answer">
          <button type="button" class="ok" disabled={busy || !ready} onClick={() => void approve("once")} aria-keyshortcuts="y">
            Approve once <kbd>y</kbd>
          </button>
          {limit ? (
            <span class="note" data-testid="once-only">
              {limit[0]!.toUpperCase() + limit.slice(1)}
            </span>
          ) : (
            <>
              <button type="button" class="ok" disabled={busy || !ready} onClick={() => void approve("session")} aria-keyshortcuts="s">
                For this session ({a.suggestedPatterns.map(safeLine).join(", ")}) <kbd>s</kbd>
              </button>
              <button type="button" class="ok" disabled={busy || !ready} onClick={opening("always")} aria-keyshortcuts="a">
                Always… <kbd>a</kbd>
              </button>
            </>
          )}
          <button type="button" class="no" disabled={busy || !ready} onClick={opening("deny")} aria-keyshortcuts="n">
            Deny… <kbd>n</kbd>
          </button>
          <button type="button" class="no" disabled={busy || !ready} onClick={() => void deny("hard")} aria-keyshortcuts="Shift+N">
            Deny hard <kbd>N</kbd>
          </button>
          {a.editable && (
            <button type="button" class="ok" disabled={busy || !ready} onClick={opening("edit")} aria-keyshortcuts="e">
              Edit… <kbd>e</kbd>
            </button>
          )}
          {a.presentation && !a.presentation.truncated && !whole && !outOfSight && (
            <button type="button" class="quiet" onClick={() => void viewWhole()} aria-keyshortcuts="v">
              Show all <kbd>v</kbd>
            </button>
          )}
        </div>
      )}
      {stage === "always" && (
        <form class="always" onSubmit={(e) => (e.preventDefault(), void approve("always"))} onKeyDown={(e) => e.key === "Escape" && back()}>
          <fieldset>
            <legend>Always allow {a.toolName} for these patterns (saved to the rules file)</legend>
            {patterns.map((p, i) => (
              <div class="pattern" key={i}>
                <label for={`${a.approvalId}-p${i}`}>Pattern {i + 1}</label>
                <input
                  class="shown"
                  id={`${a.approvalId}-p${i}`}
                  ref={i === 0 ? firstField : undefined}
                  value={p}
                  spellcheck={false}
                  autocomplete="off"
                  onInput={(e) => setPatterns(patterns.map((q, j) => (j === i ? e.currentTarget.value : q)))}
                />
                {patterns.length > 1 && (
                  <button type="button" class="quiet" onClick={() => setPatterns(patterns.filter((_, j) => j !== i))} aria-label={`Remove pattern ${i + 1}`}>
                    Remove
                  </button>
                )}
              </div>
            ))}
          </fieldset>
          <div class="answers">
            <button type="submit" class="ok" disabled={busy || !ready || patterns.every((p) => !p.trim())}>
              Save and approve
            </button>
            <button type="button" class="quiet" onClick={back}>
              Back (Esc)
            </button>
          </div>
        </form>
      )}
      {stage === "edit" && <EditForm console={c} approval={a} onBack={back} ready={ready} paused={waiting} />}
      {stage === "deny" && (
        <form class="deny" onSubmit={(e) => (e.preventDefault(), void deny("soft"))} onKeyDown={(e) => e.key === "Escape" && back()}>
          <label for={`${a.approvalId}-feedback`}>Feedback for the model (optional)</label>
          <input id={`${a.approvalId}-feedback`} ref={firstField} value={feedback} autocomplete="off" onInput={(e) => setFeedback(e.currentTarget.value)} />
          <div class="answers">
            <button type="submit" class="no" disabled={busy || !ready}>
              Deny
            </button>
            <button type="button" class="no" disabled={busy || !ready} onClick={() => void deny("hard")}>
              Deny hard (end the turn)
            </button>
            <button type="button" class="quiet" onClick={back}>
              Back (Esc)
            </button>
          </div>
        </form>
      )}
    </article>
  );
}
