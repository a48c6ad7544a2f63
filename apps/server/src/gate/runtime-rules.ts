import { Ruleset, type Rule } from "@gatehouse/policy";
import type { RuntimeRuleRecord, Store } from "../store/index.js";

function toRule(r: RuntimeRuleRecord): Rule {
  return { tool: r.tool, pattern: r.pattern, action: "allow", origin: "approval", source: { file: `session ${r.sessionId}` } };
}

/**
 * The runtime layer: allow rules that "session" and "always" approvals add, per session. Kept in
 * the store and mirrored here, because every evaluation reads them and evaluation is synchronous.
 */
export class RuntimeRules {
  private readonly bySession = new Map<string, Ruleset>();

  constructor(private readonly store: Store) {}

  /** Loads the rules the store holds (at start, or when a session's rules may have changed elsewhere). */
  async load(sessionId?: string): Promise<void> {
    const records = await this.store.runtimeRules(sessionId);
    const grouped = new Map<string, Rule[]>();
    if (sessionId !== undefined) grouped.set(sessionId, []);
    for (const r of records) {
      const list = grouped.get(r.sessionId) ?? [];
      list.push(toRule(r));
      grouped.set(r.sessionId, list);
    }
    for (const [id, rules] of grouped) {
      if (rules.length === 0) this.bySession.delete(id);
      else this.bySession.set(id, new Ruleset(rules));
    }
  }

  of(sessionId: string): Ruleset | undefined {
    return this.bySession.get(sessionId);
  }

  async allow(sessionId: string, tool: string, patterns: readonly string[]): Promise<void> {
    await this.store.addRuntimeRules(sessionId, tool, patterns);
    const existing = this.bySession.get(sessionId)?.rules ?? [];
    const added = patterns.map((pattern) => toRule({ sessionId, tool, pattern }));
    this.bySession.set(sessionId, new Ruleset([...existing, ...added]));
  }

  async forget(sessionId: string): Promise<void> {
    this.bySession.delete(sessionId);
    await this.store.forgetRuntimeRules(sessionId);
  }
}
