import type { Log } from "@gatehouse/log";
import type { SessionInfo } from "@gatehouse/protocol";
import type { AgentRunner } from "../../runner/index.js";
import type { ApprovalGate } from "../../gate/index.js";
import { GatehouseError } from "../../errors.js";
import type { EventHub } from "../../store/index.js";
import type { PersonShell } from "../../workers/index.js";
import type { Store } from "../../store/index.js";
import type { WorkerPermissions } from "../../gate/index.js";
import type { WorkerEntry, WorkerRegistry } from "../../workers/index.js";

/** What the procedures work with. */
export interface Services {
  store: Store;
  hub: EventHub;
  gate: ApprovalGate;
  runner: AgentRunner;
  registry: WorkerRegistry;
  /** People's own `!command`s. */
  shell: PersonShell;
  permissions: WorkerPermissions;
  /** Prepares a new session's model: checks a real one's configuration, loads a scripted one's scenario. */
  openModel: (session: SessionInfo, scenario: string | undefined) => void;
  defaultModel: string;
  toolTimeoutMs: number;
  log: Log;
}

export { now } from "../../clock.js";

/** A session by id; NOT_FOUND when there is none. */
export async function sessionOf(services: Services, id: string): Promise<SessionInfo> {
  const found = await services.store.getSession(id);
  if (!found) throw new GatehouseError("NOT_FOUND", `session ${id} does not exist`);
  return found;
}

/** A registered worker by id; NOT_FOUND when there is none. */
export function workerOf(services: Services, id: string): WorkerEntry {
  const found = services.registry.get(id);
  if (!found) throw new GatehouseError("NOT_FOUND", `worker ${id} has not registered`);
  return found;
}
