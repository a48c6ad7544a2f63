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

export function describeRule(ref: RuleRef): string {
  const where = ref.file ? ` at ${ref.file}${ref.line ? `:${ref.line}:${ref.column}` : ""}` : "";
  const made = ref.origin === "approval" ? ", approval-made" : "";
  return `${ref.layer} rule ${ref.tool} "${ref.pattern}": ${ref.action}${where}${made}`;
}
