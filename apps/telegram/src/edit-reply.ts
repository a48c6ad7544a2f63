import type { Decision } from "@gatehouse/protocol";
import { editableText, safeLine } from "@gatehouse/protocol/show";
import { InlineKeyboard } from "grammy";
import { cut, esc } from "./html.js";

/** The line a card ends with when its call may be edited: how to do it. */
export const EDIT_HINT = "<i>To run it changed, reply to this message with the edited command (or the arguments as JSON).</i>";

/** The message that shows an edited call against the original, with what the gate makes of it. */
export function editedCallMessage(toolName: string, original: string, edited: Record<string, unknown>, decision: Decision): string {
  const before = cut(editableText(toolName, original), 1500);
  const after = cut(editableText(toolName, JSON.stringify(edited)), 1500);
  const lines = ["<b>Edited call</b>", `<pre>- ${esc(before)}\n+ ${esc(after)}</pre>`, `Why it asks: ${esc(cut(decision.reason, 600))}`];
  if (decision.critical) lines.push(`<b>⚠ Critical: ${esc(decision.critical)}</b>. It can run once only, by the button below.`);
  return lines.join("\n");
}

/** Approving the edited call (`ref`: the card's key and the edit's number): once, for the session, always (its own patterns); a critical one only once, confirmed. */
export function editKeyboard(ref: string, decision: Decision, patterns: string[]): InlineKeyboard {
  if (decision.critical) return new InlineKeyboard().text("Run the edited call once (critical)", `ec:${ref}`);
  const named = patterns.length > 0 ? `: ${cut(safeLine(patterns.join(", ")), 48)}` : "";
  const kb = new InlineKeyboard().text("Approve edited", `eo:${ref}`).text(`Session${named}`, `es:${ref}`).row();
  if (patterns.length > 0) kb.text(`Always${named}`, `ea:${ref}`);
  return kb;
}
