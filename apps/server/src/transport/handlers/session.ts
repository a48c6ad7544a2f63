import type { Handlers, SessionInfo } from "@gatehouse/protocol";
import { nanoid } from "nanoid";
import { agentNames, findAgent } from "../../runner/index.js";
import { GatehouseError } from "../../errors.js";
import { patchSession } from "../../runner/index.js";
import { type Services, now, sessionOf, workerOf } from "./services.js";

/** The `session` router: create, list, get, mode, and a person's own shell command. */
export function sessionHandlers(services: Services): Handlers["session"] {
  return {
    async create(p, input) {
      const w = workerOf(services, input.workerId);
      if (!findAgent(w, input.agent)) throw new GatehouseError("NOT_FOUND", `worker ${w.id} has no agent type "${input.agent}"; it has ${agentNames(w)}`);
      const info: SessionInfo = {
        id: nanoid(),
        workerId: w.id,
        agent: input.agent,
        model: input.model ?? services.defaultModel,
        mode: input.mode,
        parentId: null,
        createdAt: now(),
        status: "idle",
      };
      services.openModel(info, input.scenario);
      await services.store.putSession(info);
      await services.hub.publish({ type: "session_created", sessionId: info.id, at: now(), session: info });
      services.log.info("session created", { sessionId: info.id, workerId: info.workerId, agent: info.agent, model: info.model, mode: info.mode, by: p.name });
      return info;
    },
    async list() {
      return services.store.listSessions();
    },
    async get(_p, input) {
      return { session: await sessionOf(services, input.sessionId), history: await services.store.messages(input.sessionId) };
    },
    async setMode(_p, input) {
      const current = await sessionOf(services, input.sessionId);
      await patchSession(services.store, current.id, { mode: input.mode });
      await services.hub.publish({ type: "mode_changed", sessionId: current.id, at: now(), mode: input.mode });
      await services.gate.recheck(current.id);
      return { applied: true };
    },
    async shell(p, input) {
      return services.shell.run(await sessionOf(services, input.sessionId), input.command, p.name);
    },
  };
}
