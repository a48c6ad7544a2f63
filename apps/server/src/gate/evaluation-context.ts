import type { EvaluationContext, RulesFileError, Ruleset } from "@gatehouse/policy";
import { evaluationContext } from "@gatehouse/policy/node";
import type { SessionInfo } from "@gatehouse/protocol";
import type { InvalidRules } from "./invalid-rules.js";
import type { RuntimeRules } from "./runtime-rules.js";
import type { WorkerPermissions } from "./worker-permissions.js";
import type { WorkerEntry, WorkerRegistry } from "../workers/index.js";

/** Where a session's rules come from: its worker's file, its agent type, its approvals. */
export interface RuleSources {
  permissions: WorkerPermissions;
  registry: WorkerRegistry;
  runtime: RuntimeRules;
  /** The session's agent layer (docs/design.md, "Layers"); undefined for a session without one. */
  agentLayer: (session: SessionInfo) => Ruleset | undefined;
  protectedPaths: readonly string[];
}

/** The worker's home, or the server's for a worker that did not say (the policy's default). */
export const homeOf = (worker: WorkerEntry | undefined): string | undefined => worker?.home;

/** The evaluation context of a session's call: its worker's rules, directory, home and tool tier. */
export class SessionContexts {
  constructor(
    private readonly sources: RuleSources,
    private readonly invalid: Pick<InvalidRules, "fixed">,
  ) {}

  /** The context, or the problem that stands in for it when the worker's rules file does not load. */
  of(session: SessionInfo, tool: string): EvaluationContext | RulesFileError {
    const worker = this.sources.registry.get(session.workerId);
    const rules = this.sources.permissions.load(session.workerId, homeOf(worker));
    if (!rules.ok) return rules.error;
    this.invalid.fixed(session.id);
    return this.withRules(session, tool, rules.ruleset);
  }

  /**
   * What a call's decision in the session depends on besides the call, each by identity or value:
   * decisions made with equal inputs are equal. Null when the rules file does not load. They are
   * the parts the evaluation context is made of, so the two cannot drift apart.
   */
  inputs(session: SessionInfo, tool: string): readonly unknown[] | null {
    const rules = this.sources.permissions.load(session.workerId, homeOf(this.sources.registry.get(session.workerId)));
    if (!rules.ok) return null;
    const { layers, ...rest } = this.parts(session, tool, rules.ruleset);
    return [layers.agent, layers.static, layers.runtime, ...Object.values(rest)];
  }

  withRules(session: SessionInfo, tool: string, ruleset: Ruleset): EvaluationContext {
    const { workDir, ...rest } = this.parts(session, tool, ruleset);
    return evaluationContext({ ...rest, workDir: workDir ?? "/", protectedPaths: this.sources.protectedPaths });
  }

  private parts(session: SessionInfo, tool: string, ruleset: Ruleset) {
    const worker = this.sources.registry.get(session.workerId);
    return {
      layers: { agent: this.sources.agentLayer(session), static: ruleset, runtime: this.sources.runtime.of(session.id) },
      workDir: worker?.workDir,
      home: homeOf(worker),
      mode: session.mode,
      tier: worker?.tools.find((t) => t.name === tool)?.tier,
    };
  }
}
