import { evaluate, parseRulesOrThrow, Ruleset, DEFAULT_RULES_TEXT, type EvaluationContext, type Decision, type Layers } from "../src/index.js";

export const HOME = "/home/ada";
export const CWD = "/work/project";

export function ruleset(text: string, file = "permissions.jsonc"): Ruleset {
  return new Ruleset(parseRulesOrThrow(text, { file, home: HOME }));
}

export const defaults = ruleset(DEFAULT_RULES_TEXT);

export function context(layers: Partial<Layers> = {}, extra: Partial<EvaluationContext> = {}): EvaluationContext {
  return { layers: { static: defaults, ...layers }, cwd: CWD, home: HOME, ...extra };
}

export function decide(tool: string, args: Record<string, unknown>, ctx: EvaluationContext = context()): Decision {
  return evaluate({ tool, args }, ctx);
}

export function shell(command: string, ctx: EvaluationContext = context()): Decision {
  return evaluate({ tool: "shell_exec", args: { command } }, ctx);
}
