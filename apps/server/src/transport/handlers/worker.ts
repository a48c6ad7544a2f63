import type { Handlers } from "@gatehouse/protocol";
import { type Services, workerOf } from "./services.js";

/** The `worker` router: a worker's registration, its tool requests and its results. */
export function workerHandlers(services: Services): Handlers["worker"] {
  return {
    async register(_p, input) {
      services.registry.register(input);
      return { ok: true as const };
    },
    requests(_p, input, signal) {
      workerOf(services, input.workerId);
      return services.registry.requests(input.workerId, signal);
    },
    async result(_p, input) {
      const { workerId, requestId, ...output } = input;
      return { accepted: services.registry.result(workerId, requestId, output) };
    },
    async heartbeat(_p, input) {
      services.registry.heartbeat(input.workerId);
      return { ok: true as const };
    },
  };
}
