/** The parts of the policy that touch this machine: rules files on disk, their cache and appends, the home directory. */
export { appendRule } from "./append-rule.js";
export { evaluationContext, homeDirectory, type ContextParts } from "./context.js";
export { hasGitHead } from "./git-head.js";
export { readRegularFile } from "./regular-file.js";
export { readRulesText, RulesFileCache, seedRulesFile, type LoadOptions } from "./rules-file-cache.js";
export { perRun } from "./this-run.js";
