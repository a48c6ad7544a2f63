import type { Handlers } from "@gatehouse/protocol";
import { agentHandlers } from "./agent.js";
import { auditHandlers } from "./audit.js";
import { permissionsHandlers } from "./permissions.js";
import type { Services } from "./services.js";
import { sessionHandlers } from "./session.js";
import { toolHandlers } from "./tool.js";
import { workerHandlers } from "./worker.js";
import { workersHandlers } from "./workers.js";

export type { Services } from "./services.js";

/** The server's side of the protocol, one router a module. */
export function createHandlers(services: Services): Handlers {
  return {
    session: sessionHandlers(services),
    agent: agentHandlers(services),
    tool: toolHandlers(services),
    workers: workersHandlers(services),
    worker: workerHandlers(services),
    permissions: permissionsHandlers(services),
    audit: auditHandlers(services),
  };
}
