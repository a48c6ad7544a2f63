import { FILE_TOOLS, isToolGlob, toolKeyMatches, type Ruleset } from "@gatehouse/policy";
import type { Guard, SessionInfo } from "@gatehouse/protocol";
import { homeOf, type RuleSources } from "./evaluation-context.js";

/** A glob key (`*_file`) reaches the worker as one rule for each file tool it covers. */
const toolsOf = (key: string) => (key === "*" || FILE_TOOLS.has(key) ? [key] : isToolGlob(key) ? [...FILE_TOOLS].filter((t) => toolKeyMatches(key, t)) : []);

const fileRules = (set: Ruleset | undefined) =>
  (set?.rules ?? []).flatMap((r) => toolsOf(r.tool).map((tool) => ({ tool, pattern: r.pattern, action: r.action, origin: r.origin })));

/** The file-tool rules of every layer and the protected paths, which the worker applies again on real paths. */
export function workerGuard(session: SessionInfo, sources: RuleSources): Guard {
  const rules = sources.permissions.load(session.workerId, homeOf(sources.registry.get(session.workerId)));
  const agent = sources.agentLayer(session);
  return {
    agent: agent ? fileRules(agent) : null,
    static: rules.ok ? fileRules(rules.ruleset) : [],
    runtime: fileRules(sources.runtime.of(session.id)),
    protectedPaths: [...sources.protectedPaths],
  };
}
