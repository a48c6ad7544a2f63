import { TRPCError } from "@trpc/server";

export type ServerErrorCode =
  "NOT_FOUND" | "WORKER_OFFLINE" | "WORKER_LOST" | "TOOL_TIMEOUT" | "ABORTED" | "BUSY" | "CONFIG" | "PROVIDER" | "REFUSED" | "CHANGED";

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
    const code = this.code === "NOT_FOUND" ? "NOT_FOUND" : this.code === "BUSY" || this.code === "CHANGED" ? "CONFLICT" : "PRECONDITION_FAILED";
    return new TRPCError({ code, message: this.message, cause: this });
  }
}
