import type { ApprovalRequired, EventOf, Presentation } from "@gatehouse/protocol";
import { approvalMark, describeMark, inSight, onceOnly, safeLine, safePresentation, type Cut } from "@gatehouse/protocol/show";
import { describeCall } from "@gatehouse/client-text";
import { InlineKeyboard } from "grammy";
import { cut, esc, escShown, short } from "./html.js";

/** How much of a diff or command is shown inside the message; the rest goes as a document. */
export const INLINE_CHARS = 2500;

export interface Card {
  /** HTML for the message. */
  text: string;
  /** Whether the whole presentation goes as a document below the card. */
  attach: boolean;
}

/** What a card shows of a line before leaving the rest out with a marker (the whole follows as a file). */
const CARD_LIMITS = { maxLines: Number.MAX_SAFE_INTEGER, maxLineChars: 300, maxSpaceRun: 16, maxBlankRun: 2 };

/** The part of a presentation (made safe) that fits in a message, cut at a line end; what is out of sight left out with a marker. */
function inlinePart(p: Presentation, max: number): { shown: string; whole: boolean; cuts: Cut[] } {
  const fitted = inSight(p.content, { ...CARD_LIMITS, diff: p.kind === "diff" });
  const body = p.kind === "command" ? `$ ${fitted.text}` : fitted.text;
  if (!p.truncated && fitted.cuts.length === 0 && body.length <= max) return { shown: body, whole: true, cuts: [] };
  const head = body.slice(0, max);
  const lastBreak = head.lastIndexOf("\n");
  return { shown: lastBreak > max / 2 ? head.slice(0, lastBreak) : head, whole: false, cuts: fitted.cuts };
}

/** The message for an approval: what would run, why it asks, and what "always" would save. */
export function approvalCard(e: ApprovalRequired, inlineChars = INLINE_CHARS): Card {
  const lines = [`<b>Approval needed</b> · session <code>${short(e.sessionId)}</code>`, `<b>${escShown(describeCall(e.toolName, e.arguments, 300))}</b>`];
  lines.push(`Why: ${esc(cut(e.reason, 600))}`);
  if (e.batch.total > 1) lines.push(`Call ${e.batch.index + 1} of ${e.batch.total} in this batch`);
  let attach = false;
  let cuts: Cut[] = [];
  const p = e.presentation ? safePresentation(e.presentation) : null;
  if (p) {
    const part = inlinePart(p, inlineChars);
    cuts = part.cuts;
    lines.push(`<pre>${escShown(part.shown)}</pre>`);
    if (p.cwd) lines.push(`in <code>${escShown(p.cwd)}</code>`);
    if (!part.whole) {
      attach = true;
      lines.push(`<i>Cut here: the whole ${p.kind} (${p.fullSize} characters) follows as a file.</i>`);
    }
  }
  for (const line of describeMark(approvalMark(e, cuts))) lines.push(`<b>⚠ ${escShown(line)}</b>`);
  const limit = onceOnly(e);
  if (limit) lines.push(`<i>${esc(limit[0]!.toUpperCase() + limit.slice(1))}.</i>`);
  else lines.push(`Always would save: ${e.suggestedPatterns.map((x) => `<code>${esc(cut(x, 200))}</code>`).join(", ")}`);
  return { text: lines.join("\n"), attach };
}

/** What Session and Always would save: nothing for a call the server approves once only, which then offers neither. */
export const rememberedPatterns = (e: ApprovalRequired): string[] => (onceOnly(e) ? [] : e.suggestedPatterns);

/** Approve, Session and Always (each with the patterns it allows) where the call may be remembered, and Deny. */
export function approvalKeyboard(key: string, patterns: string[]): InlineKeyboard {
  const kb = new InlineKeyboard().text("Approve", `ap:${key}`);
  if (patterns.length > 0)
    kb.text(`Session: ${cut(safeLine(patterns.join(", ")), 48)}`, `as:${key}`)
      .row()
      .text(`Always: ${cut(safeLine(patterns.join(", ")), 48)}`, `aa:${key}`);
  return kb.row().text("Deny", `dn:${key}`);
}

/** While a denial waits for its feedback: deny without it, deny and end the turn, or go back. */
export function denyKeyboard(key: string): InlineKeyboard {
  return new InlineKeyboard().text("Deny without feedback", `dx:${key}`).row().text("Deny and end the turn", `dh:${key}`).row().text("Back", `bk:${key}`);
}

const SCOPES = { once: "once", session: "for this session", always: "always" } as const;

/** One line on how an approval ended, added below its card. */
export function outcomeLine(e: EventOf<"tool_approval_resolved">): string {
  const by = e.by ? ` by ${esc(e.by)}` : "";
  switch (e.outcome) {
    case "approved": {
      const scope = SCOPES[e.scope ?? "once"];
      const edited = e.editedArguments ? `\n<b>Edited</b>: it ran as <code>${esc(cut(e.editedArguments, 1500))}</code>` : "";
      return `<b>✅ Approved ${scope}${by}</b>${e.pattern ? `: saved <code>${esc(e.pattern)}</code>` : ""}${edited}`;
    }
    case "denied":
      return `<b>⛔ Denied${by}</b>${e.feedback ? `: “${esc(cut(e.feedback, 500))}”` : ""}`;
    case "timed_out":
      return "<b>⏱ Timed out</b>: nobody answered in time, so the call was denied.";
    case "cancelled":
      return `<b>✖ Cancelled</b>${by}: the turn was aborted or its worker went away.`;
  }
}

/** What a card says when an answer finds the approval no longer pending. */
export const NO_LONGER_PENDING = "<i>No longer pending: answered elsewhere, cancelled, timed out, or lost in a server restart.</i>";
