import { TRPCError } from "@trpc/server";

export type ServerErrorCode =
  "NOT_FOUND" | "WORKER_OFFLINE" | "WORKER_LOST" | "TOOL_TIMEOUT" | "ABORTED" | "BUSY" | "CONFIG" | "PROVIDER" | "REFUSED" | "CHANGED" | "CONFLICT" | "INVALID";

const TRPC_CODES: Partial<Record<ServerErrorCode, TRPCError["code"]>> = {
  NOT_FOUND: "NOT_FOUND",
  BUSY: "CONFLICT",
  CHANGED: "CONFLICT",
  CONFLICT: "CONFLICT",
  INVALID: "BAD_REQUEST",
};

/** A server-side failure with a code; the router turns it into a tRPC error with the same words. */
export class GatehouseError extends Error {
  constructor(
    readonly code: ServerErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "GatehouseError";
  }

  toTRPC(): TRPCError {
    const code = TRPC_CODES[this.code] ?? "PRECONDITION_FAILED";
    return new TRPCError({ code, message: this.message, cause: this });
  }
}
