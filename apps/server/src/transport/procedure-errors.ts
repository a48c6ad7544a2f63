import type { Log } from "@gatehouse/log";
import type { Context } from "@gatehouse/protocol";
import type { TRPCError } from "@trpc/server";

interface ProcedureError {
  error: TRPCError;
  path: string | undefined;
  type: string;
  ctx: Context | undefined;
}

/** tRPC's `onError`: a failure inside the server is an error in the log, a refused token a warning, a client's mistake a debug line. */
export function logProcedureError(log: Log): (failure: ProcedureError) => void {
  return ({ error, path, type, ctx }) => {
    const who = ctx?.principal?.name ?? null;
    // Without a path the failure is the connection's own (a frame over the limit, a reset); its socket is closed.
    if (error.code === "INTERNAL_SERVER_ERROR" && path === undefined)
      log.warn(/payload/i.test(error.cause?.message ?? "") ? "limit hit: frame size" : "connection error", {
        error: error.cause?.message ?? error.message,
        who,
      });
    else if (error.code === "INTERNAL_SERVER_ERROR") log.error("a procedure failed", { err: error.cause ?? error, path, type, who });
    else if (error.code === "UNAUTHORIZED" || error.code === "FORBIDDEN") log.warn(`refused: ${error.message}`, { path, type, who, code: error.code });
    else log.debug("a procedure answered with an error", { path, type, who, code: error.code, message: error.message });
  };
}
