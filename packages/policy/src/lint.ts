import { compileHostPattern } from "./network/host-pattern.js";
import { NETWORK_TOOL } from "./network/network-tool.js";
import { compilePattern } from "./pattern.js";
import { parseRules, type ParseOptions, type RulesIssue } from "./rules-file.js";
import type { Rule } from "./rule.js";
import { isToolGlob, toolKeyMatches } from "./ruleset.js";
import { BUILT_IN_TOOLS, unknownToolName } from "./tool-names.js";

export interface LintReport {
  errors: RulesIssue[];
  warnings: RulesIssue[];
}

const GLOB_CHARS = /[*?[\]{}()!+@]/;
const PATH_TOOLS = new Set(["read_file", "write_file", "edit_file", "grep"]);

function at(rule: Rule): { line: number; column: number } {
  return { line: rule.source?.line ?? 1, column: rule.source?.column ?? 1 };
}

function covers(later: Rule, earlier: Rule, pathLike: boolean): boolean {
  if (!toolKeyMatches(later.tool, earlier.tool) && !(isToolGlob(earlier.tool) && later.tool === earlier.tool)) return false;
  if (later.pattern === earlier.pattern || later.pattern === "*" || later.pattern === "**") return true;
  return !GLOB_CHARS.test(earlier.pattern) && compilePattern(later.pattern, pathLike).test(earlier.pattern);
}

/** Why a pattern can never match its tool's subjects, or null. */
function neverMatches(rule: Rule): string | null {
  const p = rule.pattern;
  if (PATH_TOOLS.has(rule.tool)) {
    if (/(^|\/)\.\.?(\/|$)/.test(p)) return "paths are normalised before matching, so a pattern with . or .. segments never matches";
    if (p.length > 1 && p.endsWith("/")) return "paths are matched without a trailing slash";
    if (p.includes("//")) return "paths are matched with single slashes";
  }
  if (rule.tool === "network") {
    const host = compileHostPattern(p);
    if ("error" in host) return host.error;
  }
  if (rule.tool === "shell_exec" && p !== p.trim()) return "commands are matched without leading or trailing spaces";
  if (rule.tool === "shell_exec" && /\s{2,}/.test(p)) return "command words are matched joined by single spaces";
  if (
    rule.tool !== "*" &&
    !isToolGlob(rule.tool) &&
    !BUILT_IN_TOOLS.includes(rule.tool) &&
    rule.tool !== NETWORK_TOOL &&
    p !== "*" &&
    !compilePattern(p, false).test(rule.tool)
  ) {
    return `${rule.tool} is matched by its name only, and "${p}" does not match it`;
  }
  return null;
}

/** Errors with their positions; warnings for unknown tool names, shadowed rules and patterns that can never match. */
export function lintRules(text: string, opts: ParseOptions): LintReport {
  const { rules, errors } = parseRules(text, opts);
  const warnings: RulesIssue[] = [];
  const named = new Set<string>();
  rules.forEach((rule, i) => {
    const unknown = rule.tool === "*" || isToolGlob(rule.tool) || named.has(rule.tool) ? null : unknownToolName(rule.tool);
    named.add(rule.tool);
    if (unknown) warnings.push({ ...at(rule), message: unknown });
    const never = neverMatches(rule);
    if (never) warnings.push({ ...at(rule), message: `${rule.tool} "${rule.pattern}" can never match: ${never}` });
    const pathLike = PATH_TOOLS.has(rule.tool);
    const later = rules.slice(i + 1).find((r) => covers(r, rule, pathLike) && !(r.origin === "approval" && r.action === "allow" && rule.action === "deny"));
    if (later) {
      const where = later.source?.line ? ` at line ${later.source.line}` : "";
      warnings.push({
        ...at(rule),
        message:
          `${rule.tool} "${rule.pattern}" (${rule.action}) is shadowed by ${later.tool} "${later.pattern}" (${later.action})${where}, ` +
          "which matches everything it does and comes later",
      });
    }
  });
  return { errors, warnings };
}
