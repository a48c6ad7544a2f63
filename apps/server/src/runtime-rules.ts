import { Ruleset, type Rule } from "@gatehouse/policy";

/** The runtime layer: allow rules that "session" and "always" approvals add, per session. */
export class RuntimeRules {
  private readonly bySession = new Map<string, Ruleset>();

  of(sessionId: string): Ruleset | undefined {
    return this.bySession.get(sessionId);
  }

  allow(sessionId: string, tool: string, patterns: readonly string[]): void {
    const existing = this.bySession.get(sessionId)?.rules ?? [];
    const added: Rule[] = patterns.map((pattern) => ({ tool, pattern, action: "allow", origin: "approval", source: { file: `session ${sessionId}` } }));
    this.bySession.set(sessionId, new Ruleset([...existing, ...added]));
  }

  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
  }
}
