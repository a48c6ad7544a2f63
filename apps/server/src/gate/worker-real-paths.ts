import { REAL_PATHS_REQUEST, RealPathsAnswer, type Guard, type SessionInfo, type ToolOutput } from "@gatehouse/protocol";
import type { WorkerRegistry } from "../workers/index.js";

/** Where a path leads on its worker, or the error code that stopped its resolution there. */
export type Resolved = RealPathsAnswer[string];

/** Asks a session's worker where paths really lead. */
export type RealPathLookup = (session: SessionInfo, paths: readonly string[], signal?: AbortSignal) => Promise<ReadonlyMap<string, Resolved>>;

/** The worker could not say where a call's paths lead (offline, too old to answer, no answer in time). */
export class RealPathsUnknownError extends Error {
  readonly code = "REAL_PATHS_UNKNOWN";
  constructor(message: string) {
    super(message);
    this.name = "RealPathsUnknownError";
  }
}

/** A worker answers at once: it only resolves names. */
const ANSWER_WITHIN_MS = 10_000;

function answerOf(got: ToolOutput): Map<string, Resolved> {
  if (!got.ok) throw new RealPathsUnknownError(`the worker did not say where the call's paths lead: ${got.output}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(got.output);
  } catch {
    throw new RealPathsUnknownError("the worker's answer about where the call's paths lead is not JSON");
  }
  const answer = RealPathsAnswer.safeParse(parsed);
  if (!answer.success) throw new RealPathsUnknownError("the worker's answer about where the call's paths lead has the wrong shape");
  return new Map(Object.entries(answer.data));
}

/** A real-paths request runs no tool: the worker applies no rules to it, so none are sent. */
const NO_RULES: Guard = { agent: null, static: [], runtime: [], protectedPaths: [] };

/** Real paths from the session's worker, by the worker's own resolution (the one its file checks use). */
export function workerRealPaths(registry: Pick<WorkerRegistry, "dispatch">): RealPathLookup {
  return async (session, paths, signal) => {
    // A timer and one controller: AbortSignal.timeout and AbortSignal.any cost more than the request.
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), ANSWER_WITHIN_MS);
    const onAbort = () => stop.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const got = await registry
        .dispatch(
          session.workerId,
          { sessionId: session.id, toolName: REAL_PATHS_REQUEST, args: { paths: [...paths] }, timeoutMs: ANSWER_WITHIN_MS, guard: NO_RULES, origin: "gate" },
          stop.signal,
        )
        .catch((err: unknown): ToolOutput => ({ ok: false, output: (err as Error).message }));
      return answerOf(got);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  };
}
