import type { ApprovalRequired } from "./events.js";
import { describeCuts, type Cut } from "./in-sight.js";
import { lookAlikes, shellLookAlikes, type LookAlike } from "./look-alikes.js";
import { isShowable, showJson, showText } from "./safe-text.js";
import type { Presentation } from "./schemas.js";

/** What a person must be told about a call before answering it: what is hidden in it, what looks like something else, what is out of sight. */
export interface CallMark {
  hidden: number;
  kinds: string[];
  lookAlikes: LookAlike[];
  /** In a shell command, punctuation that looks like quoting or an operator and is not (`“ (U+201C)`). */
  shellLookAlikes: string[];
  cuts: Cut[];
}

const strings = (value: unknown): string[] => {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
};

function parsed(argumentsJson: string): unknown {
  try {
    return JSON.parse(argumentsJson);
  } catch {
    return argumentsJson;
  }
}

/** A shell call's command, or "" when its arguments hold none. */
const commandOf = (args: unknown): string => {
  const command = args && typeof args === "object" ? (args as Record<string, unknown>).command : undefined;
  return typeof command === "string" ? command : "";
};

/**
 * The mark of an approval: from its presentation as the server made it safe (which covers the
 * whole of what it shows), else from its arguments; the tool's name counts too.
 */
export function approvalMark(e: Pick<ApprovalRequired, "toolName" | "arguments" | "presentation">, cuts: Cut[] = []): CallMark {
  const name = showText(e.toolName, { oneLine: true });
  const p = e.presentation;
  const args = parsed(e.arguments);
  const fromArgs = showJson(args);
  const hidden = p?.hidden ?? fromArgs.hidden;
  const kinds = p?.hiddenKinds ?? fromArgs.kinds;
  const found = p?.lookAlikes ?? lookAlikes(strings(args).join("\n"));
  return {
    hidden: hidden + name.hidden,
    kinds: [...new Set([...name.kinds, ...kinds])],
    lookAlikes: [...lookAlikes(e.toolName), ...found],
    shellLookAlikes: e.toolName === "shell_exec" ? shellLookAlikes(commandOf(args)) : [],
    cuts: [...(p?.cuts ?? []), ...cuts],
  };
}

/** The mark in words, a line for each thing to know; none for a call with nothing to mark. */
export function describeMark(mark: CallMark): string[] {
  const lines: string[] = [];
  if (mark.hidden > 0) {
    const kinds = mark.kinds.slice(0, 6).join(", ") + (mark.kinds.length > 6 ? ", …" : "");
    lines.push(`contains ${mark.hidden} invisible character${mark.hidden === 1 ? "" : "s"}, shown as escapes (${kinds})`);
  }
  if (mark.lookAlikes.length > 0) {
    lines.push(`look-alike letters: ${mark.lookAlikes.map((l) => `${l.word} (${l.scripts.join(" and ")})`).join(", ")}`);
  }
  if (mark.shellLookAlikes.length > 0)
    lines.push(`look-alike punctuation: ${mark.shellLookAlikes.join(", ")}: plain characters to the shell, not quotes or operators`);
  if (mark.cuts.length > 0) lines.push(`left out of sight: ${describeCuts(mark.cuts)}`);
  return lines;
}

/**
 * A presentation whose content and directory are safe to print: as the server made them, or
 * escaped here when they are not (a server from before presentations were made safe).
 */
export function safePresentation(p: Presentation): Presentation {
  const cwd = p.cwd === undefined || isShowable(p.cwd) ? p.cwd : showText(p.cwd, { oneLine: true }).text;
  if (p.hidden !== undefined && isShowable(p.content) && cwd === p.cwd) return p;
  const shown = showText(p.content);
  return { ...p, content: shown.text, hidden: shown.hidden, hiddenKinds: shown.kinds, ...(cwd === undefined ? {} : { cwd }) };
}

/** A call's arguments (a JSON text) safe to print: JSON with every hidden code point escaped, or the text escaped when it is not JSON. */
export function safeArguments(argumentsJson: string, indent?: number): string {
  const args = parsed(argumentsJson);
  return typeof args === "string" && args === argumentsJson ? showText(argumentsJson).text : showJson(args, indent).text;
}
