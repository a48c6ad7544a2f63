import readline from "node:readline";
import { evaluate, loadShellParser, type EvaluationContext, type ToolCall } from "@gatehouse/policy";

function parseCall(line: string): ToolCall {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new Error(`not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error('expected an object {"tool": "...", "args": {...}}');
  const { tool, args } = value as Record<string, unknown>;
  if (typeof tool !== "string" || tool === "") throw new Error('"tool" must be a non-empty string');
  // A call without its arguments has no subject to judge: a decision for it would describe no real call.
  if (args === undefined) throw new Error(`"args" is missing: give the call's arguments, {"tool": "${tool}", "args": {...}}`);
  if (typeof args !== "object" || args === null || Array.isArray(args)) throw new Error('"args" must be an object');
  return { tool, args: args as Record<string, unknown> };
}

/** Reads JSON-lines tool calls and writes one JSON-line decision per input line, in order. */
export async function permissionsEval(ctx: EvaluationContext, input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Promise<number> {
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === "") continue;
    let out: unknown;
    try {
      const call = parseCall(line);
      if (call.tool === "shell_exec") await loadShellParser();
      const d = evaluate(call, ctx);
      out = { action: d.action, reason: d.reason, rule: d.rule };
    } catch (err) {
      out = { error: `line ${n}: ${(err as Error).message}` };
    }
    output.write(`${JSON.stringify(out)}\n`);
  }
  return 0;
}
