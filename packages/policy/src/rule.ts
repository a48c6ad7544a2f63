import type { Action } from "./action.js";

import type { Layer, Origin } from "./terms.js";

export type LayerName = Layer;

/** Where a rule was written: a file position, or a runtime origin such as an approval. */
export interface RuleSource {
  file?: string;
  line?: number;
  column?: number;
}

export interface Rule {
  /** A tool name, or "*" for every tool. */
  tool: string;
  pattern: string;
  action: Action;
  /** "approval" rules were created by a person's "always"/"session" answer; they obey the deny floor. */
  origin: Origin;
  source?: RuleSource;
}

/** The rule facts that travel in decisions, events and the audit log. */
export interface RuleRef {
  tool: string;
  pattern: string;
  action: Action;
  origin: Rule["origin"];
  layer: LayerName;
  file?: string;
  line?: number;
  column?: number;
}

export function ruleRef(rule: Rule, layer: LayerName): RuleRef {
  return {
    tool: rule.tool,
    pattern: rule.pattern,
    action: rule.action,
    origin: rule.origin,
    layer,
    ...rule.source,
  };
}

/**
 * A rule in words. In full: `static rule shell_exec "git *": allow at permissions.jsonc:12:5`;
 * brief, for a transcript that shows the outcome already: `static rule shell_exec "git *" (permissions.jsonc:12:5)`.
 */
export function describeRule(ref: RuleRef, form: "full" | "brief" = "full"): string {
  const position = ref.file ? `${ref.file}${ref.line ? `:${ref.line}:${ref.column}` : ""}` : "";
  const named = `${ref.layer} rule ${ref.tool} "${ref.pattern}"`;
  if (form === "brief") return position ? `${named} (${position})` : named;
  const made = ref.origin === "approval" ? ", approval-made" : "";
  return `${named}: ${ref.action}${position ? ` at ${position}` : ""}${made}`;
}
