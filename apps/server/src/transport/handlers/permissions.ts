import type { Handlers } from "@gatehouse/protocol";
import { lintRules, suggestPatterns } from "@gatehouse/policy";
import { homeDirectory } from "@gatehouse/policy/node";
import { type Services, now, sessionOf, workerOf } from "./services.js";

/** The `permissions` router: a worker's rules file and how the gate would decide a call. */
export function permissionsHandlers(services: Services): Handlers["permissions"] {
  return {
    async get(_p, input) {
      const home = services.registry.get(input.workerId)?.home;
      const loaded = services.permissions.load(input.workerId, home);
      const text = services.permissions.text(input.workerId);
      const warnings = loaded.ok ? lintRules(text, { file: loaded.file, home: home ?? homeDirectory() }).warnings : [];
      return {
        file: loaded.file,
        text,
        error: loaded.ok ? null : loaded.error.message,
        warnings: warnings.map(({ line, column, message }) => ({ line, column, message })),
      };
    },
    async explain(_p, input) {
      const w = workerOf(services, input.workerId);
      const base = input.sessionId
        ? await sessionOf(services, input.sessionId)
        : {
            id: `explain-${w.id}`,
            workerId: w.id,
            agent: "general",
            model: services.defaultModel,
            mode: "default" as const,
            parentId: null,
            createdAt: now(),
            status: "idle" as const,
          };
      const decision = services.gate.explain({ ...base, mode: input.mode ?? base.mode }, { tool: input.tool, args: input.args });
      return { decision, suggestedPatterns: suggestPatterns(decision) };
    },
  };
}
