import { applyEdits, findNodeAtLocation, modify, parseTree, type FormattingOptions, type Node, type ParseError } from "jsonc-parser";
import type { Action } from "./action.js";
import { PolicyError } from "./errors.js";
import { APPROVAL_MARK, JSONC_OPTIONS } from "./rules-file.js";
import { toolKeyMatches } from "./ruleset.js";

export interface AppendRule {
  tool: string;
  pattern: string;
  action?: Action;
  /** Text after the approval mark, e.g. who approved and when. */
  note?: string;
}

const PLACEHOLDER = "\u0000gatehouse-placeholder\u0000";

function formatting(text: string): FormattingOptions {
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  return { insertSpaces: !indent.includes("\t"), tabSize: indent.includes("\t") ? 1 : indent.length, eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

function rootOf(text: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, JSONC_OPTIONS);
  if (errors.length > 0 || !root || root.type !== "object") throw new PolicyError("APPEND_FAILED", "the rules file does not parse; fix it before adding rules");
  return root;
}

/** A top-level "*" or glob key (`github_*`) written after the tool's entry would override the new rule: move the entry last. */
function moveEntryLast(text: string, tool: string, fmt: FormattingOptions): string {
  const root = rootOf(text);
  const props = root.children ?? [];
  const at = props.findIndex((p) => p.children?.[0]?.value === tool);
  const laterCatchAll = props.slice(at + 1).some((p) => {
    const key: unknown = p.children?.[0]?.value;
    return typeof key === "string" && key !== tool && toolKeyMatches(key, tool);
  });
  if (at < 0 || !laterCatchAll) return text;
  const value = props[at]!.children![1]!;
  const raw = text.slice(value.offset, value.offset + value.length);
  let out = applyEdits(text, modify(text, [tool], undefined, { formattingOptions: fmt }));
  out = applyEdits(out, modify(out, [tool], PLACEHOLDER, { formattingOptions: fmt }));
  return out.replace(JSON.stringify(PLACEHOLDER), raw);
}

function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** Just past the comma and any trailing comment that follow a value on its line. */
function endOfEntry(text: string, valueEnd: number): number {
  let i = valueEnd;
  while (text[i] === " " || text[i] === "\t" || text[i] === ",") i++;
  if (text.startsWith("//", i)) return text.indexOf("\n", i) === -1 ? text.length : text.indexOf("\n", i);
  if (text.startsWith("/*", i)) return text.indexOf("*/", i) + 2;
  while (i > valueEnd && (text[i - 1] === " " || text[i - 1] === "\t")) i--;
  return i;
}

/** Inserts `line` as the last property of `object`, on a line of its own, keeping every comment. */
function insertLast(text: string, object: Node, line: string, fmt: FormattingOptions): string {
  const unit = fmt.insertSpaces ? " ".repeat(fmt.tabSize ?? 2) : "\t";
  const closing = lineIndent(text, object.offset);
  const last = object.children?.at(-1)?.children?.[1];
  let at: number;
  let indent: string;
  if (last) {
    const valueEnd = last.offset + last.length;
    const hasComma = /^[ \t]*,/.test(text.slice(valueEnd));
    if (!hasComma) text = `${text.slice(0, valueEnd)},${text.slice(valueEnd)}`;
    at = endOfEntry(text, valueEnd);
    const keyStart = object.children!.at(-1)!.offset;
    indent = /^[ \t]*$/.test(text.slice(text.lastIndexOf("\n", keyStart - 1) + 1, keyStart)) ? lineIndent(text, keyStart) : closing + unit;
  } else {
    at = object.offset + 1;
    indent = closing + unit;
  }
  const rest = text.slice(at);
  const tail = /^[ \t]*\r?\n/.test(rest) || rest === "" ? "" : `${fmt.eol}${closing}`;
  return `${text.slice(0, at)}${fmt.eol}${indent}${line}${tail}${rest.replace(/^[ \t]+(?=[}\]])/, "")}`;
}

/** The text with the rule appended last in its tool's entry, marked as approval-made. */
export function appendRuleText(text: string, rule: AppendRule): string {
  const fmt = formatting(text);
  let out = moveEntryLast(text, rule.tool, fmt);
  const entry = findNodeAtLocation(rootOf(out), [rule.tool]);
  if (!entry) out = applyEdits(out, modify(out, [rule.tool], {}, { formattingOptions: fmt }));
  else if (entry.type === "string") out = applyEdits(out, modify(out, [rule.tool], { "*": entry.value }, { formattingOptions: fmt }));
  else if (entry.type !== "object") throw new PolicyError("APPEND_FAILED", `the entry "${rule.tool}" is neither an action nor an object`);
  if (findNodeAtLocation(rootOf(out), [rule.tool, rule.pattern])) {
    out = applyEdits(out, modify(out, [rule.tool, rule.pattern], undefined, { formattingOptions: fmt }));
  }
  const mark = `${APPROVAL_MARK}${rule.note ? ` ${rule.note.replace(/[\r\n]+/g, " ")}` : ""}`;
  const line = `${JSON.stringify(rule.pattern)}: ${JSON.stringify(rule.action ?? "allow")} ${mark}`;
  return insertLast(out, findNodeAtLocation(rootOf(out), [rule.tool])!, line, fmt);
}
