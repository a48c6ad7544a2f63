import { z } from "zod";
import type { Decision, ToolCall } from "@gatehouse/policy";
import type { ToolDescriptor } from "@gatehouse/protocol";
import { canonical } from "./approval-digest.js";
import { GatehouseError } from "../errors.js";

const schemas = new WeakMap<object, z.ZodType>();

/** A schema that keeps its parts under draft-07's `definitions` without naming its draft is read as draft-07, as MCP servers mean it. */
function withDraft(schema: Record<string, unknown>): Record<string, unknown> {
  return "definitions" in schema && !("$schema" in schema) ? { ...schema, $schema: "http://json-schema.org/draft-07/schema#" } : schema;
}

function schemaOf(descriptor: ToolDescriptor): z.ZodType {
  let schema = schemas.get(descriptor.inputSchema);
  if (!schema) schemas.set(descriptor.inputSchema, (schema = z.fromJSONSchema(withDraft(descriptor.inputSchema) as Parameters<typeof z.fromJSONSchema>[0])));
  return schema;
}

const still = "the call is still pending";

/** Refuses edited arguments that do not fit the tool's input schema, naming each field that does not. */
export function refuseMisfit(call: ToolCall, descriptor: ToolDescriptor | undefined): void {
  if (!descriptor) throw new GatehouseError("INVALID", `the worker has no ${call.tool} tool now: an edit of this call cannot be checked; ${still}`);
  let schema: z.ZodType;
  try {
    schema = schemaOf(descriptor);
  } catch (err) {
    throw new GatehouseError(
      "INVALID",
      `the ${call.tool} tool's schema cannot be read (${(err as Error).message}): an edit of this call cannot be checked; ${still}`,
    );
  }
  const checked = schema.safeParse(call.args);
  if (checked.success) return;
  const issues = checked.error.issues.slice(0, 5).map((i) => `${i.path.length > 0 ? i.path.join(".") : "the arguments"}: ${i.message}`);
  throw new GatehouseError("INVALID", `the edited arguments do not fit the ${call.tool} tool: ${issues.join("; ")}; ${still}`);
}

/** What the gate's decision for an edited call lets through: a deny refuses it, a critical call only with its own confirmation. */
export function refuseEditDecision(tool: string, decision: Decision, confirmed: boolean): void {
  if (decision.action === "deny") throw new GatehouseError("REFUSED", `the edited ${tool} call is denied: ${decision.reason}; ${still}`);
  if (decision.critical && !confirmed)
    throw new GatehouseError(
      "REFUSED",
      `the edited ${tool} call matches a critical pattern (${decision.critical}): approve it again with confirmCritical to run it once; ${still}`,
    );
}

export const sameArguments = (a: Record<string, unknown>, b: Record<string, unknown>): boolean => canonical(a) === canonical(b);
