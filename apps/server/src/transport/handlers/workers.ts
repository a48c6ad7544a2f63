import type { Handlers } from "@gatehouse/protocol";
import { agentsOf } from "../../runner/index.js";
import { type Services } from "./services.js";

/** The `workers` router: what each registered worker offers. */
export function workersHandlers(services: Services): Handlers["workers"] {
  return {
    async list() {
      return services.registry.list().map((w) => ({
        id: w.id,
        workDir: w.workDir,
        connected: w.connected,
        tools: w.tools.map(({ name, description, tier }) => ({ name, description, tier })),
        agents: agentsOf(w).map((a) => a.name),
        skills: w.skills,
        sandbox: w.sandbox ?? null,
        mcpServers: w.mcpServers ?? [],
      }));
    },
  };
}
