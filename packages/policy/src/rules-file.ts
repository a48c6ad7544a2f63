import { parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import { isAction } from "./action.js";
import { RulesFileError } from "./errors.js";
import { expandHome } from "./paths.js";
import type { Rule } from "./rule.js";

/** The marker that makes a rule approval-made: a trailing `// approved` comment on its line. */
export const APPROVAL_MARK = "// approved";

export interface RulesIssue {
  line: number;
  column: number;
  message: string;
}

export interface ParsedRules {
  rules: Rule[];
  errors: RulesIssue[];
}

export interface ParseOptions {
  file: string;
  home: string;
}

export const JSONC_OPTIONS = { allowTrailingComma: true, disallowComments: false } as const;

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

export function positionOf(starts: number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 };
}

function approvalMarked(text: string, valueEnd: number): boolean {
  const eol = text.indexOf("\n", valueEnd);
  const rest = text.slice(valueEnd, eol === -1 ? text.length : eol);
  return /^\s*,?\s*\/\/\s*approved\b/.test(rest);
}

/** Parses permissions.jsonc text into the ordered rule list of docs/design.md, "Rules and their order", collecting every problem. */
export function parseRules(text: string, opts: ParseOptions): ParsedRules {
  const starts = lineStarts(text);
  const errors: RulesIssue[] = [];
  const issue = (offset: number, message: string) => errors.push({ ...positionOf(starts, offset), message });
  const syntax: ParseError[] = [];
  const root = parseTree(text, syntax, JSONC_OPTIONS);
  for (const e of syntax) issue(e.offset, `syntax error: ${printParseErrorCode(e.error)}`);
  if (syntax.length > 0) return { rules: [], errors };
  if (!root || root.type !== "object") {
    issue(root?.offset ?? 0, "the rules must be a JSON object of tool names");
    return { rules: [], errors };
  }
  const rules: Rule[] = [];
  const rule = (tool: string, pattern: string, valueNode: Node, keyNode: Node): void => {
    const action = valueNode.value;
    if (!isAction(action)) {
      issue(valueNode.offset, `unknown action ${JSON.stringify(action)} for ${tool} "${pattern}" (use allow, deny or ask)`);
      return;
    }
    const origin = approvalMarked(text, valueNode.offset + valueNode.length) ? "approval" : "person";
    const at = positionOf(starts, keyNode.offset);
    rules.push({
      tool,
      pattern: expandHome(pattern, opts.home),
      action,
      origin,
      source: { file: opts.file, line: at.line, column: at.column },
    });
  };
  for (const prop of root.children ?? []) {
    const [keyNode, valueNode] = prop.children ?? [];
    if (!keyNode || !valueNode) continue;
    const tool = String(keyNode.value);
    if (tool.trim() === "") issue(keyNode.offset, "empty tool name");
    else if (valueNode.type === "string") rule(tool, "*", valueNode, keyNode);
    else if (valueNode.type === "object") {
      for (const inner of valueNode.children ?? []) {
        const [pKey, pValue] = inner.children ?? [];
        if (!pKey || !pValue) continue;
        const pattern = String(pKey.value);
        if (pattern === "") issue(pKey.offset, `empty pattern in "${tool}"`);
        else if (pValue.type !== "string") issue(pValue.offset, `the action for ${tool} "${pattern}" must be a string: allow, deny or ask`);
        else rule(tool, pattern, pValue, pKey);
      }
    } else {
      issue(valueNode.offset, `"${tool}" must be an action string or an object of pattern: action`);
    }
  }
  return { rules, errors };
}

export function parseRulesOrThrow(text: string, opts: ParseOptions): Rule[] {
  const { rules, errors } = parseRules(text, opts);
  const first = errors[0];
  if (first) {
    const code = first.message.startsWith("syntax error") ? "RULES_PARSE" : "RULES_INVALID";
    throw new RulesFileError(code, opts.file, first.line, first.column, first.message);
  }
  return rules;
}
