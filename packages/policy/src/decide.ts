import { isStricter } from "./action.js";
import type { Verdict } from "./decision.js";
import { absolutePath, isInside, subjectOfAbsolute, unusablePath } from "./paths.js";
import { describeRule, ruleRef } from "./rule.js";
import { findLast, findLastDeny, type Layers, type Match, type Subject } from "./ruleset.js";

/** Everything a decision depends on besides the call itself. */
export interface DecideContext {
  layers: Layers;
  /** The worker's work directory. */
  cwd: string;
  home: string;
  /** Never written by write tools or shell redirections, whatever the rules say (DESIGN §2.3). */
  protectedPaths?: readonly string[];
  /** Resolves symlinks (dangling ones too) where the files are on this machine. */
  resolveRealPath?: (absolute: string) => string;
}

export const WRITE_TOOLS: ReadonlySet<string> = new Set(["write_file", "edit_file"]);

function fromMatch(match: Match, subject: string, reason: string): Verdict {
  const rule = ruleRef(match.rule, match.layer);
  return { action: match.rule.action, subject, rule, reason: `${reason}${describeRule(rule)}` };
}

/** Layers, agent veto, last match wins, default ask, deny floor (DESIGN §2.1, §2.3). */
export function decideSubject(layers: Layers, tool: string, subject: Subject, label: string): Verdict {
  if (layers.agent) {
    const veto = findLast(layers, tool, subject, "agent");
    if (veto?.rule.action === "deny") return fromMatch(veto, label, "the agent's veto: ");
  }
  const match = findLast(layers, tool, subject);
  if (!match) return { action: "ask", subject: label, rule: null, reason: `no rule matches ${tool} "${label}"; the default is ask` };
  if (match.rule.action === "allow" && match.rule.origin === "approval") {
    const floor = findLastDeny(layers, tool, subject);
    if (floor) return fromMatch(floor, label, "deny floor (an approval-made allow never overrides a deny): ");
  }
  return fromMatch(match, label, "");
}

export function isProtected(absolute: string, ctx: DecideContext): string | undefined {
  return ctx.protectedPaths?.find((p) => isInside(absolute, p));
}

function decidePath(tool: string, absolute: string, ctx: DecideContext): Verdict {
  const guard = WRITE_TOOLS.has(tool) ? isProtected(absolute, ctx) : undefined;
  if (guard) return { action: "deny", subject: absolute, rule: null, reason: `${absolute} is inside the protected path ${guard}` };
  const subject = subjectOfAbsolute(absolute, ctx.cwd);
  return decideSubject(ctx.layers, tool, { kind: "path", path: subject }, subject.primary);
}

/** A file tool's decision for one path, repeated on its real path where that can be resolved. */
export function decideFile(tool: string, raw: string, ctx: DecideContext): Verdict {
  const unusable = unusablePath(raw);
  if (unusable) return { action: "deny", subject: raw, rule: null, reason: `${unusable}; such a path is never allowed` };
  return decideAbsolute(tool, absolutePath(raw, ctx.cwd, ctx.home), ctx);
}

/** As decideFile, for a path already made absolute and normalised. */
export function decideAbsolute(tool: string, absolute: string, ctx: DecideContext): Verdict {
  const verdict = decidePath(tool, absolute, ctx);
  const real = ctx.resolveRealPath?.(absolute);
  if (!real || real === absolute) return verdict;
  const onReal = decidePath(tool, real, ctx);
  if (!isStricter(onReal.action, verdict.action)) return verdict;
  return { ...onReal, subject: verdict.subject, reason: `${verdict.subject} resolves to ${real}: ${onReal.reason}` };
}
