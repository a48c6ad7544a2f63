import { GATEHOUSE_ERROR_CODES, type GatehouseErrorCode } from "@gatehouse/protocol";
import { TRPCError } from "@trpc/server";

/** A server-side failure with a code; the router turns it into a tRPC error with the same words, its code in the error's data. */
export class GatehouseError extends Error {
  constructor(
    readonly code: GatehouseErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "GatehouseError";
  }

  toTRPC(): TRPCError {
    return new TRPCError({ code: GATEHOUSE_ERROR_CODES[this.code], message: this.message, cause: this });
  }
}
