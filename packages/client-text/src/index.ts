// How every client (the terminal, the Telegram bot, `gatehouse run`) words a call, its rule and its
// output in a line or a few, so that the same call reads the same everywhere.
import { describeRule as describePolicyRule } from "@gatehouse/policy/rule";
import { cutLine, safeLine, showText, type Decision, type ToolResultOutcome } from "@gatehouse/protocol";

/** Whether a call was stopped by a rule or a person rather than failing on its own. */
export const wasRefused = (outcome: ToolResultOutcome): boolean => outcome === "denied" || outcome === "rejected";

/** Text on one line, safe to print: hidden code points and line breaks escaped, long runs of spaces and the end cut with a mark. */
const oneLine = (text: string, max: number) => cutLine(safeLine(text.trim()), max);

/** A tool call in a few words: `shell_exec git status`, `edit_file src/app.ts`. */
export function describeCall(toolName: string, argumentsJson: string, max = 100): string {
  let args: Record<string, unknown> = {};
  try {
    args = JSON.parse(argumentsJson) as Record<string, unknown>;
  } catch {
    return `${safeLine(toolName)} ${oneLine(argumentsJson, max)}`;
  }
  const tool = safeLine(toolName);
  if (toolName === "task" && typeof args.agent === "string") return `task ${oneLine(args.agent, max)}: ${oneLine(String(args.prompt ?? ""), max)}`;
  const main = args.command ?? args.path ?? args.pattern ?? args.name ?? args.file_path;
  const shown = typeof main === "string" ? main : JSON.stringify(args);
  return `${tool} ${oneLine(shown, max)}`;
}

/** The rule behind a decision: `static rule shell_exec "git *" (permissions.jsonc:12:5)`. */
export function describeRule(decision: Decision | null): string | null {
  return decision?.rule ? safeLine(describePolicyRule(decision.rule, "brief")) : null;
}

/** The first lines of a tool's output, for the transcript. */
export function outputPreview(output: string, lines = 4, width = 160): string[] {
  const all = output.replace(/\s+$/, "").split("\n");
  const shown = all.slice(0, lines).map((l) => cutLine(showText(l).text, width));
  if (all.length > lines) shown.push(`… ${all.length - lines} more line(s)`);
  return shown;
}
