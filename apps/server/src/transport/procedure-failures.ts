import { procedureMiddleware } from "@gatehouse/protocol/router";
import type { TRPCError } from "@trpc/server";
import { GatehouseError } from "../errors.js";

/** Gives a failure the words a client sees; returns it unchanged when it has none to give. */
export type Explain = (err: unknown) => unknown;

/** What a resolver threw: its own error, not tRPC's wrapping of an error that is not one of tRPC's. */
const thrown = (error: TRPCError): unknown => (error.code === "INTERNAL_SERVER_ERROR" && error.cause ? error.cause : error);

const isStream = (v: unknown): v is AsyncIterable<unknown> => typeof v === "object" && v !== null && Symbol.asyncIterator in v;

/**
 * The stream with its failures explained. Not a generator: every event of every subscription
 * passes here, and a generator's `yield*` costs several promises an event where this costs one.
 */
function explained(source: AsyncIterable<unknown>, explain: Explain): AsyncIterable<unknown> {
  return {
    [Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      const told = (err: unknown) => Promise.reject(explain(err));
      return {
        next: () => it.next().catch(told),
        return: (value?: unknown) => (it.return ? it.return(value).catch(told) : Promise.resolve({ done: true as const, value })),
        throw: (err?: unknown) => (it.throw ? it.throw(err).catch(told) : Promise.reject(explain(err))),
      };
    },
  };
}

/** A step that explains a procedure's failure, and the failure its subscription's stream meets later. */
export function explainFailures(explain: Explain) {
  return procedureMiddleware(async ({ next }) => {
    const result = await next();
    if (!result.ok) {
      const err = thrown(result.error);
      const told = explain(err);
      if (told !== err) throw told;
      return result;
    }
    return isStream(result.data) ? { ...result, data: explained(result.data, explain) } : result;
  });
}

/** Server errors reach the client as tRPC errors with their own words and their Gatehouse code. */
export const gatehouseErrors = explainFailures((err) => (err instanceof GatehouseError ? err.toTRPC() : err));
