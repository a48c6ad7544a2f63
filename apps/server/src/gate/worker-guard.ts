import type { Ruleset } from "@gatehouse/policy";
import type { Guard, SessionInfo } from "@gatehouse/protocol";
import { homeOf, type RuleSources } from "./evaluation-context.js";

/**
 * Every rule of a layer: the worker decides each call again (shell commands, searches and file
 * tools alike) and refuses what its rules do not allow on the real paths.
 */
const guardRules = (set: Ruleset | undefined) => (set?.rules ?? []).map((r) => ({ tool: r.tool, pattern: r.pattern, action: r.action, origin: r.origin }));

const NONE = {};

/**
 * Guards by the objects they are built from: the same rule sets (unchanged files and session
 * rules are the same objects) give the same guard object, which a worker link sends only once.
 */
const built = new WeakMap<object, WeakMap<object, WeakMap<object, WeakMap<object, Guard>>>>();

function remembered<K extends object, V>(map: WeakMap<K, V>, key: K, make: () => V): V {
  let found = map.get(key);
  if (found === undefined) map.set(key, (found = make()));
  return found;
}

/**
 * The rules of every layer and the protected paths, which the worker applies again on real paths:
 * the rules file as its watch last saw it (WorkerPermissions.current), as for the server's own
 * check of a call about to run.
 */
export function workerGuard(session: SessionInfo, sources: RuleSources): Guard {
  const rules = sources.permissions.current(session.workerId, homeOf(sources.registry.get(session.workerId)));
  const agent = sources.agentLayer(session);
  const runtime = sources.runtime.of(session.id);
  const byStatic = remembered(built, sources.protectedPaths, () => new WeakMap());
  const byAgent = remembered(byStatic, rules.ok ? rules.ruleset : NONE, () => new WeakMap());
  const byRuntime = remembered(byAgent, agent ?? NONE, () => new WeakMap());
  return remembered(byRuntime, runtime ?? NONE, () => ({
    agent: agent ? guardRules(agent) : null,
    static: rules.ok ? guardRules(rules.ruleset) : [],
    runtime: guardRules(runtime),
    protectedPaths: [...sources.protectedPaths],
  }));
}
