import path from "node:path";
import { resolveRealPath } from "@gatehouse/fs-guard";
import type { EvaluationContext } from "@gatehouse/policy";
import { evaluationContext, homeDirectory, RulesFileCache } from "@gatehouse/policy/node";

import type { OptionValues } from "./options.js";
import type { RULES_OPTIONS } from "./commands/permissions-options.js";

/**
 * The evaluation context for a rules file on this machine. The files are here, so the worker's
 * real-path check is applied too and the answer is the end-to-end one. Throws RulesFileError.
 */
export function rulesContext(values: OptionValues<typeof RULES_OPTIONS>): EvaluationContext {
  const ruleset = new RulesFileCache().load(values.rules, { home: homeDirectory() });
  return evaluationContext({
    layers: { static: ruleset },
    workDir: values.cwd ?? process.cwd(),
    mode: values.mode ?? "default",
    protectedPaths: values.protect.map((p) => resolveRealPath(path.resolve(p))),
    resolveRealPath,
  });
}
