import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";

/**
 * Why the server refused or failed a request, for clients to switch on. A procedure's error
 * carries its code in `error.data.gatehouseCode` (beside tRPC's own `error.data.code`, which is
 * coarser); a `session_error` event carries it as `code`. Each code travels under the tRPC code
 * it maps to here.
 */
export const GATEHOUSE_ERROR_CODES = {
  /** A session, worker, pending approval or agent type that does not exist. */
  NOT_FOUND: "NOT_FOUND",
  /** The session's worker is not connected. */
  WORKER_OFFLINE: "PRECONDITION_FAILED",
  /** The worker disconnected while a tool was running on it. */
  WORKER_LOST: "PRECONDITION_FAILED",
  /** A tool ran past its time limit. */
  TOOL_TIMEOUT: "PRECONDITION_FAILED",
  /** The call or the model was stopped (an abort, the server stopping). */
  ABORTED: "PRECONDITION_FAILED",
  /** The server cannot take this now (a turn's end not recorded yet, an instance starting); try again. */
  BUSY: "CONFLICT",
  /** What the request was answered against changed before the answer came (an approval's call). */
  CHANGED: "CONFLICT",
  /** The server's configuration does not allow it (a model, a store, a certificate). */
  CONFIG: "PRECONDITION_FAILED",
  /** The model's provider failed the request. */
  PROVIDER: "PRECONDITION_FAILED",
  /** The answer came too late or was beaten by another (an approval already answered, or answered with an edit). */
  CONFLICT: "CONFLICT",
  /** What the request carries does not fit (an edited call's arguments, an edit of a call that cannot be edited). */
  INVALID: "BAD_REQUEST",
  /** The request is well formed but the server will not do it (a pattern never saved, a subagent prompted). */
  REFUSED: "PRECONDITION_FAILED",
  /** The token's role does not allow it on this worker or at all. */
  ACCESS_DENIED: "FORBIDDEN",
  /** The token made more requests per second than `limits.requestsPerSecond`. */
  RATE_LIMITED: "TOO_MANY_REQUESTS",
  /** The token has as many subscriptions open as `limits.subscriptionsPerToken` allows. */
  TOO_MANY_SUBSCRIPTIONS: "TOO_MANY_REQUESTS",
  /** The token has as many connections open as `limits.connectionsPerToken` allows. */
  TOO_MANY_CONNECTIONS: "TOO_MANY_REQUESTS",
  /** No space is left in the server's data directory: the request could not be recorded. */
  STORE_FULL: "SERVICE_UNAVAILABLE",
  /** The server's store (its database) is unavailable; try again once it is back. */
  STORE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  /** A failure inside the server; its log says more. */
  INTERNAL: "INTERNAL_SERVER_ERROR",
} as const satisfies Record<string, TRPC_ERROR_CODE_KEY>;

export type GatehouseErrorCode = keyof typeof GATEHOUSE_ERROR_CODES;

export function isGatehouseErrorCode(value: unknown): value is GatehouseErrorCode {
  return typeof value === "string" && Object.hasOwn(GATEHOUSE_ERROR_CODES, value);
}

/** The Gatehouse code of an error a client received (`error.data.gatehouseCode`); undefined when it has none. */
export function gatehouseCodeOf(err: unknown): GatehouseErrorCode | undefined {
  const code = (err as { data?: { gatehouseCode?: unknown } } | null)?.data?.gatehouseCode;
  return isGatehouseErrorCode(code) ? code : undefined;
}
