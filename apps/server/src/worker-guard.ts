import { FILE_TOOLS, isToolGlob, NETWORK_TOOL, toolKeyMatches, type Ruleset } from "@gatehouse/policy";
import type { Guard, SessionInfo } from "@gatehouse/protocol";
import { homeOf, type RuleSources } from "./evaluation-context.js";

/** The tools whose rules the worker applies itself: the file tools, and the proxy's network rules. */
const GUARDED_TOOLS: ReadonlySet<string> = new Set([...FILE_TOOLS, NETWORK_TOOL]);

/** A glob key (`*_file`) reaches the worker as one rule for each guarded tool it covers. */
const toolsOf = (key: string) =>
  key === "*" || GUARDED_TOOLS.has(key) ? [key] : isToolGlob(key) ? [...GUARDED_TOOLS].filter((t) => toolKeyMatches(key, t)) : [];

const fileRules = (set: Ruleset | undefined) =>
  (set?.rules ?? []).flatMap((r) => toolsOf(r.tool).map((tool) => ({ tool, pattern: r.pattern, action: r.action, origin: r.origin })));

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

/** The file-tool and network rules of every layer and the protected paths, which the worker applies itself. */
export function workerGuard(session: SessionInfo, sources: RuleSources): Guard {
  const rules = sources.permissions.load(session.workerId, homeOf(sources.registry.get(session.workerId)));
  const agent = sources.agentLayer(session);
  const runtime = sources.runtime.of(session.id);
  const byStatic = remembered(built, sources.protectedPaths, () => new WeakMap());
  const byAgent = remembered(byStatic, rules.ok ? rules.ruleset : NONE, () => new WeakMap());
  const byRuntime = remembered(byAgent, agent ?? NONE, () => new WeakMap());
  return remembered(byRuntime, runtime ?? NONE, () => ({
    agent: agent ? fileRules(agent) : null,
    static: rules.ok ? fileRules(rules.ruleset) : [],
    runtime: fileRules(runtime),
    protectedPaths: [...sources.protectedPaths],
  }));
}
