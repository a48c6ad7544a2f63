import { expandHome, Ruleset, type Rule } from "@gatehouse/policy";
import type { AgentDefinition, BuiltinAgentName, PermissionMap, SessionInfo } from "@gatehouse/protocol";
import type { WorkerEntry } from "../workers/index.js";

/** How deep subagents may nest, whatever the agents say: a loop of agents starting agents ends here. */
export const MAX_SUBAGENT_DEPTH = 4;

/** The agent types every worker has (docs/design.md, "Agents and models"). */
export const BUILTIN_AGENTS: readonly (AgentDefinition & { name: BuiltinAgentName })[] = [
  {
    name: "explore",
    description: "Reads and searches the work directory to answer a question; changes nothing.",
    prompt:
      "You are an explore agent. Find what you are asked about with read_file, glob and grep, " +
      "then answer in a few sentences with the paths that matter. You cannot change files or run commands.",
    permission: { "*": "deny", read_file: "allow", glob: "allow", grep: "allow" },
    model: null,
    maySpawn: false,
    file: "built-in agent explore",
    mayWiden: true,
  },
  {
    name: "general",
    description: "Carries out a multi-step task with the same tools and rules as its parent.",
    prompt: "You are a general agent working on one task for another agent. Do the task, then end with a short answer that says what you did and found.",
    permission: null,
    model: null,
    maySpawn: false,
    file: "built-in agent general",
    mayWiden: true,
  },
];

/** The built-in agents, then the worker's own (a worker cannot replace a built-in; see the worker's agent loader). */
export function agentsOf(worker: Pick<WorkerEntry, "agents"> | undefined): AgentDefinition[] {
  const own = (worker?.agents ?? []).filter((a) => !BUILTIN_AGENTS.some((b) => b.name === a.name));
  return [...BUILTIN_AGENTS, ...own];
}

/** A built-in agent first, since a worker's agent cannot take a built-in's name; no list is built (every decision asks). */
export function findAgent(worker: Pick<WorkerEntry, "agents"> | undefined, name: string): AgentDefinition | undefined {
  return BUILTIN_AGENTS.find((a) => a.name === name) ?? worker?.agents.find((a) => a.name === name);
}

/** The agent types a worker's sessions can use, for messages that list them. */
export function agentNames(worker: Pick<WorkerEntry, "agents"> | undefined): string {
  return agentsOf(worker)
    .map((a) => a.name)
    .join(", ");
}

/** Whether a subagent at this depth would nest too deep. */
export function nestsTooDeep(childDepth: number): boolean {
  return childDepth > MAX_SUBAGENT_DEPTH;
}

function permissionRules(permission: PermissionMap, file: string, home: string, origin: Rule["origin"]): Rule[] {
  return Object.entries(permission).flatMap(([tool, value]) => {
    const patterns = typeof value === "string" ? { "*": value } : value;
    return Object.entries(patterns).map(([pattern, action]): Rule => ({
      tool,
      pattern: expandHome(pattern, home),
      action,
      origin,
      source: { file },
    }));
  });
}

/** Whether an agent type says its subagents may start subagents, from a place the agent cannot write. */
const spawns = (agent: AgentDefinition | undefined) => agent?.maySpawn === true && agent.mayWiden === true;

const DENY_ALL: readonly Rule[] = [{ tool: "*", pattern: "*", action: "deny", origin: "person", source: { file: "unknown agent" } }];
const NO_SPAWN: Rule = { tool: "task", pattern: "*", action: "deny", origin: "person", source: { file: "agent without may-spawn" } };

/**
 * The agent layer of a session (docs/design.md, "Layers"): the agent type's permission rules, and for a
 * subagent whose type may not spawn, a deny of `task`. An unknown agent type denies everything:
 * its rules cannot be known, and its veto is the only safe reading.
 */
export class AgentLayers {
  private readonly cache = new WeakMap<AgentDefinition, { subagent: Ruleset | undefined; top: Ruleset | undefined }>();
  /** One object for every unknown type: what a decision depends on is compared by identity. */
  private readonly unknown = new Ruleset(DENY_ALL);

  constructor(private readonly home: string) {}

  forSession(session: SessionInfo, worker: Pick<WorkerEntry, "agents" | "home"> | undefined): Ruleset | undefined {
    const agent = findAgent(worker, session.agent);
    if (!agent) return this.unknown;
    let cached = this.cache.get(agent);
    if (!cached) this.cache.set(agent, (cached = this.compile(agent, worker?.home ?? this.home)));
    return session.parentId ? cached.subagent : cached.top;
  }

  /**
   * An agent's rules, `~/` expanded to the home of the worker that offers it. The rules of an agent
   * that may not widen (its file lies where the agent can write) are limits: they only narrow.
   */
  private compile(agent: AgentDefinition, home: string): { subagent: Ruleset | undefined; top: Ruleset | undefined } {
    const own = agent.permission ? permissionRules(agent.permission, agent.file, home, agent.mayWiden === true ? "person" : "limit") : [];
    const subagent = spawns(agent) ? own : [...own, NO_SPAWN];
    return { subagent: subagent.length > 0 ? new Ruleset(subagent) : undefined, top: own.length > 0 ? new Ruleset(own) : undefined };
  }
}

/** Whether a session may start subagents (at `childDepth`): a person's session may; a subagent only if its type says so. */
export function maySpawn(session: SessionInfo, agent: AgentDefinition | undefined, childDepth: number): boolean {
  if (nestsTooDeep(childDepth)) return false;
  return session.parentId === null || spawns(agent);
}
