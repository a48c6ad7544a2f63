import path from "node:path";
import { resolveRealPath } from "@gatehouse/fs-guard";
import type { EvaluationContext } from "@gatehouse/policy";
import { evaluationContext, homeDirectory, RulesFileCache } from "@gatehouse/policy/node";
import { CliError } from "./cli-error.js";
import { parseMode } from "./flags.js";

export interface RulesOptions {
  rules?: string | undefined;
  cwd?: string | undefined;
  mode?: string | undefined;
  protect?: string[] | undefined;
}

export const RULES_FLAGS = {
  rules: { type: "string" },
  cwd: { type: "string" },
  mode: { type: "string" },
  protect: { type: "string", multiple: true },
} as const;

/**
 * The evaluation context for a rules file on this machine. The files are here, so the worker's
 * real-path check is applied too and the answer is the end-to-end one. Throws RulesFileError.
 */
export function rulesContext(opts: RulesOptions): EvaluationContext {
  if (!opts.rules) throw new CliError("missing --rules FILE");
  const mode = parseMode(opts.mode) ?? "default";
  const ruleset = new RulesFileCache().load(opts.rules, { home: homeDirectory() });
  return evaluationContext({
    layers: { static: ruleset },
    workDir: opts.cwd ?? process.cwd(),
    mode,
    protectedPaths: (opts.protect ?? []).map((p) => resolveRealPath(path.resolve(p))),
    resolveRealPath,
  });
}
