import type { Action } from "./action.js";
import type { Tier } from "./tiers.js";

export const MODES = ["default", "accept-edits", "read-only", "yolo", "strict"] as const;
export type Mode = (typeof MODES)[number];

export function isMode(value: unknown): value is Mode {
  return typeof value === "string" && (MODES as readonly string[]).includes(value);
}

export interface ModeResult {
  action: Action;
  /** Set when the mode or a safety override changed the rules' answer. */
  note: string | null;
}

function byMode(action: Action, tier: Tier, mode: Mode): ModeResult {
  if (action === "deny") return { action, note: null };
  switch (mode) {
    case "accept-edits":
      return action === "ask" && tier !== "exec" ? { action: "allow", note: `accept-edits mode allows ${tier}-tier calls` } : { action, note: null };
    case "read-only":
      return tier === "read" ? { action, note: null } : { action: "deny", note: `read-only mode denies ${tier}-tier calls` };
    case "yolo":
      return action === "ask" ? { action: "allow", note: "yolo mode allows what would ask" } : { action, note: null };
    default:
      return { action, note: null };
  }
}

/**
 * The session mode and critical patterns, applied after the rules (docs/design.md, "Tiers, modes and critical patterns"). A mode never turns
 * a deny into anything else; a critical call is at least `ask` in every mode but yolo; strict mode
 * turns every remaining `ask` into `deny`, because nobody is there to answer.
 */
export function applyMode(action: Action, tier: Tier, mode: Mode, critical: string | null): ModeResult {
  let result = byMode(action, tier, mode);
  if (critical && mode !== "yolo" && result.action !== "deny")
    result = { action: "ask", note: result.note ? `critical: ${critical} (${result.note})` : `critical: ${critical}` };
  if (mode === "strict" && result.action === "ask")
    result = { action: "deny", note: `strict mode denies what would ask${result.note ? ` (${result.note})` : ""}` };
  return result;
}
