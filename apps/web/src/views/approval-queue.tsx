import type { ApprovalRequired } from "@gatehouse/protocol";
import { ANSWER_PAUSE_MS } from "@gatehouse/protocol/show";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Console } from "../console.js";
import { ApprovalCard, type CardKeys } from "./approval-card.js";

const typing = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));

/**
 * Pending approvals, oldest first. The selected card (the one holding focus, else the first)
 * takes the answer keys while no text field has focus.
 */
export function ApprovalQueue({ console: c, approvals, empty }: { console: Console; approvals: ApprovalRequired[]; empty?: string }) {
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const cards = useRef(new Map<string, CardKeys>());
  const selected = approvals.find((a) => a.approvalId === selectedId) ?? approvals[0];
  const register = (id: string, keys: CardKeys | null) => (keys ? cards.current.set(id, keys) : cards.current.delete(id));

  /** The card whose text field the person last typed into, and the card held after it went (its keys answer nothing until Enter). */
  const typedIn = useRef<string | null>(null);
  const [held, setHeld] = useState<string | null>(null);
  // Read by the key listener: a key that comes before the listener is bound again after a render still sees the hold.
  const holding = useRef<string | null>(null);
  const hold = (id: string | null) => {
    holding.current = id;
    setHeld(id);
  };
  const { ready, paused } = useAnswerPause(approvals, selected, selected?.approvalId === selectedId);

  // The listener is bound once and reads what is on screen now: a key typed between a render and a later effect
  // answers the card the person sees, not the one shown before.
  const shown = useRef({ approvals, selected });
  useLayoutEffect(() => {
    shown.current = { approvals, selected };
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // Enter in a field sends the person's own answer, as a click does (below): only typing is remembered.
      if (typing(e.target))
        typedIn.current = e.key === "Enter" ? null : ((e.target as HTMLElement).closest("[data-approval]")?.getAttribute("data-approval") ?? null);
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || e.defaultPrevented) return;
      const { approvals: now, selected: chosen } = shown.current;
      const heldNow = holding.current;
      if (heldNow !== null && now.some((a) => a.approvalId === heldNow)) {
        if (e.key === "Enter") hold(null);
        return e.preventDefault();
      }
      if (e.key === "j" || e.key === "k") {
        const i = now.findIndex((a) => a === chosen) + (e.key === "j" ? 1 : -1);
        const next = now[Math.max(0, Math.min(now.length - 1, i))];
        if (next) document.querySelector<HTMLElement>(`[data-approval="${CSS.escape(next.approvalId)}"]`)?.focus();
        return;
      }
      // A key held down answers once: its repeats would answer each call that comes up as its pause ends.
      if (e.repeat) return e.preventDefault();
      if (chosen && cards.current.get(chosen.approvalId)?.(e.key)) e.preventDefault();
    };
    const onPointer = () => (typedIn.current = null);
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, []);

  // A card that held focus and went (answered here or elsewhere) hands focus to the next one, so keys keep working.
  const focused = useRef<string | null>(null);
  // Before the browser handles another event: a key typed on must find the next card already held.
  useLayoutEffect(() => {
    const gone = focused.current !== null && !approvals.some((a) => a.approvalId === focused.current);
    if (!gone) return;
    // The person was typing an answer to the card that went: what they type on must answer nothing.
    if (typedIn.current === focused.current && approvals[0]) hold(approvals[0].approvalId);
    focused.current = null;
    const lost = !document.activeElement || document.activeElement === document.body;
    if (lost && approvals[0]) document.querySelector<HTMLElement>(`[data-approval="${CSS.escape(approvals[0].approvalId)}"]`)?.focus();
  });

  if (approvals.length === 0) return <p class="empty">{empty ?? "Nothing is waiting for an answer."}</p>;
  return (
    <div class="queue">
      <p class="keys" id="answer-keys">
        Keys: <kbd>y</kbd> once · <kbd>s</kbd> session · <kbd>a</kbd> always · <kbd>n</kbd> deny · <kbd>N</kbd> deny hard · <kbd>v</kbd> show all · <kbd>j</kbd>
        /<kbd>k</kbd> next/previous
      </p>
      {held !== null && approvals.some((a) => a.approvalId === held) && (
        <p class="critical" role="alert" data-testid="held">
          The call you were typing an answer to was answered elsewhere. Keys answer nothing until you press Enter.
        </p>
      )}
      <ol class="cards" aria-label="Pending approvals">
        {approvals.map((a, i) => (
          <li key={a.approvalId}>
            <ApprovalCard
              console={c}
              approval={a}
              selected={a === selected}
              position={{ index: i + 1, total: approvals.length }}
              register={register}
              ready={ready}
              paused={paused}
              onSelect={() => ((focused.current = a.approvalId), setSelectedId(a.approvalId))}
            />
          </li>
        ))}
      </ol>
    </div>
  );
}

/**
 * Answers wait until the cards have stood still for ANSWER_PAUSE_MS: after a card went from above
 * another, or the selected card changed other than by the person's own choice (`chosen`: they
 * focused it, by click, Tab or j/k). A card added at the end moves nothing. `paused` is read when
 * an answer comes; `ready` shows it (the answer buttons are disabled until then).
 */
function useAnswerPause(approvals: ApprovalRequired[], selected: ApprovalRequired | undefined, chosen: boolean) {
  const until = useRef(0);
  const before = useRef<{ ids: string[]; selected: string | undefined }>({ ids: [], selected: undefined });
  const [ready, setReady] = useState(false);
  // Before the browser handles another event, so that no answer comes between the change and the pause.
  useLayoutEffect(() => {
    const ids = approvals.map((a) => a.approvalId);
    const was = before.current;
    before.current = { ids, selected: selected?.approvalId };
    if ((chosen || was.selected === selected?.approvalId) && was.ids.every((id, i) => ids[i] === id)) return;
    until.current = performance.now() + ANSWER_PAUSE_MS;
    setReady(false);
  });
  useEffect(() => {
    if (ready) return;
    const timer = setTimeout(() => setReady(true), Math.max(0, until.current - performance.now()));
    return () => clearTimeout(timer);
  });
  return { ready, paused: () => performance.now() < until.current };
}
