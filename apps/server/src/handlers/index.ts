import type { Handlers } from "@gatehouse/protocol";
import { agentHandlers } from "./agent.js";
import { permissionsHandlers } from "./permissions.js";
import type { Services } from "./services.js";
import { sessionHandlers } from "./session.js";
import { toolHandlers } from "./tool.js";
import { workerHandlers } from "./worker.js";
import { workersHandlers } from "./workers.js";

export type { Services } from "./services.js";

/** The server's side of the protocol, one router a module. */
export function createHandlers(s: Services): Handlers {
  return {
    session: sessionHandlers(s),
    agent: agentHandlers(s),
    tool: toolHandlers(s),
    workers: workersHandlers(s),
    worker: workerHandlers(s),
    permissions: permissionsHandlers(s),
  };
}
