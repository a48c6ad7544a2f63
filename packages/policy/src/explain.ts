import type { Decision, Verdict } from "./decision.js";
import { describeRule } from "./rule.js";

function verdictLine(v: Verdict): string {
  const rule = v.rule ? describeRule(v.rule) : null;
  const lines = [`  ${v.action.toUpperCase().padEnd(5)} ${JSON.stringify(v.subject)}`];
  if (rule) lines.push(`      rule: ${rule}`);
  if (v.reason !== rule) lines.push(`      why: ${v.reason}`);
  return lines.join("\n");
}

/** A decision written for a person: the outcome, each sub-command, the rule and layer, and why. */
export function explainDecision(decision: Decision, suggested: readonly string[] = []): string {
  const lines = [
    `${decision.action.toUpperCase()}  ${decision.tool} ${JSON.stringify(decision.subject)}`,
    `  tier: ${decision.tier}   mode: ${decision.mode}   rules said: ${decision.ruleAction}`,
  ];
  if (decision.critical) lines.push(`  critical: ${decision.critical}`);
  const rule = decision.rule ? describeRule(decision.rule) : null;
  if (rule) lines.push(`  decided by: ${rule}`);
  if (decision.reason !== rule) lines.push(`  reason: ${decision.reason}`);
  if (decision.subcommands.length > 0) {
    lines.push("", `sub-commands (${decision.subcommands.length}):`);
    for (const v of decision.subcommands) lines.push(verdictLine(v));
  }
  if (decision.action === "ask" && suggested.length > 0) {
    lines.push("", `"always" would add: ${suggested.map((p) => JSON.stringify(p)).join(", ")}`);
  }
  return lines.join("\n");
}
