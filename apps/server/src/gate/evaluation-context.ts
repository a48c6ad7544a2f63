import type { EvaluationContext, RulesFileError, Ruleset } from "@gatehouse/policy";
import { evaluationContext } from "@gatehouse/policy/node";
import type { SessionInfo } from "@gatehouse/protocol";
import type { InvalidRules } from "./invalid-rules.js";
import type { RuntimeRules } from "./runtime-rules.js";
import type { LoadedRules, WorkerPermissions } from "./worker-permissions.js";
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

/** How many sessions' and tools' contexts are kept built; an older one is built again when asked. */
const KEPT_CONTEXTS = 4096;

/** Whether two lists of what a decision depends on (SessionContexts.inputs) are the same, part by part. */
export const sameInputs = (a: readonly unknown[] | null, b: readonly unknown[] | null) =>
  a !== null && b !== null && a.length === b.length && a.every((x, i) => x === b[i]);

/** The evaluation context of a session's call: its worker's rules, directory, home and tool tier. */
export class SessionContexts {
  /** The context last built for a session's tool, with the inputs it was built from. */
  private readonly built = new Map<string, { inputs: readonly unknown[]; ctx: EvaluationContext }>();

  constructor(
    private readonly sources: RuleSources,
    private readonly invalid: Pick<InvalidRules, "fixed">,
  ) {}

  /** The context, or the problem that stands in for it when the worker's rules file does not load. */
  of(session: SessionInfo, tool: string): EvaluationContext | RulesFileError {
    const rules = this.rules(session, false);
    if (!rules.ok) return rules.error;
    this.invalid.fixed(session.id);
    const key = `${session.id}\0${tool}`;
    const inputs = this.inputsWith(session, tool, rules.ruleset);
    const kept = this.built.get(key);
    if (kept && sameInputs(kept.inputs, inputs)) return kept.ctx;
    const ctx = this.withRules(session, tool, rules.ruleset);
    this.built.delete(key);
    this.built.set(key, { inputs, ctx });
    if (this.built.size > KEPT_CONTEXTS) this.built.delete(this.built.keys().next().value!);
    return ctx;
  }

  /**
   * What a call's decision in the session depends on besides the call, each by identity or value:
   * decisions made with equal inputs are equal. Null when the rules file does not load. They are
   * the parts the evaluation context is made of, so the two cannot drift apart. The rules file is
   * looked at again only when it may have changed (WorkerPermissions.current).
   */
  inputs(session: SessionInfo, tool: string): readonly unknown[] | null {
    const rules = this.rules(session, true);
    return rules.ok ? this.inputsWith(session, tool, rules.ruleset) : null;
  }

  withRules(session: SessionInfo, tool: string, ruleset: Ruleset): EvaluationContext {
    const { agent, static: rules, runtime, workDir, ...rest } = this.parts(session, tool, ruleset);
    return evaluationContext({ layers: { agent, static: rules, runtime }, ...rest, workDir: workDir ?? "/", protectedPaths: this.sources.protectedPaths });
  }

  private rules(session: SessionInfo, watched: boolean): LoadedRules {
    const home = homeOf(this.sources.registry.get(session.workerId));
    return watched ? this.sources.permissions.current(session.workerId, home) : this.sources.permissions.load(session.workerId, home);
  }

  private inputsWith(session: SessionInfo, tool: string, ruleset: Ruleset): readonly unknown[] {
    return Object.values(this.parts(session, tool, ruleset));
  }

  /** Everything a context is made of; each by identity or value. */
  private parts(session: SessionInfo, tool: string, ruleset: Ruleset) {
    const worker = this.sources.registry.get(session.workerId);
    return {
      agent: this.sources.agentLayer(session),
      static: ruleset,
      runtime: this.sources.runtime.of(session.id),
      workDir: worker?.workDir,
      home: homeOf(worker),
      mode: session.mode,
      tier: worker?.tools.find((t) => t.name === tool)?.tier,
    };
  }
}
