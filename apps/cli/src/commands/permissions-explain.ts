import { evaluate, explainDecision, loadShellParser, suggestPatterns, type EvaluationContext } from "@gatehouse/policy";
import { approvalMark, describeMark, safeText } from "@gatehouse/protocol";
import { CliError } from "../cli-error.js";

export function parseArgsJson(text: string | undefined): Record<string, unknown> {
  if (text === undefined) throw new CliError("missing --args JSON");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`--args is not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new CliError("--args must be a JSON object");
  return value as Record<string, unknown>;
}

/** One decision, written for a person, with the mark of what is hidden in the call or looks like something else. */
export async function permissionsExplain(ctx: EvaluationContext, tool: string | undefined, argsJson: string | undefined): Promise<string> {
  if (!tool) throw new CliError("missing --tool NAME");
  const args = parseArgsJson(argsJson);
  if (tool === "shell_exec") await loadShellParser();
  const decision = evaluate({ tool, args }, ctx);
  const mark = describeMark(approvalMark({ toolName: tool, arguments: JSON.stringify(args), presentation: null }));
  return [safeText(explainDecision(decision, suggestPatterns(decision))), ...mark.map((line) => `! ${line}`)].join("\n");
}
