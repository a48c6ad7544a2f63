import { createHash } from "node:crypto";
import type { ToolCall } from "@gatehouse/policy";
import type { Presentation } from "@gatehouse/protocol";
import { GatehouseError } from "../errors.js";

/** JSON with every object's keys in order, so that a value read back from a store digests the same. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The digest of a held call as a person is shown it: its tool, its arguments and its presentation. */
export function approvalDigest(call: ToolCall, presentation: Presentation | null): string {
  return createHash("sha256")
    .update(canonical({ tool: call.tool, args: call.args, presentation }))
    .digest("base64url");
}

/**
 * Refuses an approval given for something other than what is pending: the digest the person's
 * client sent back must be the one of the call as it is held now. A client that sends none is
 * not checked.
 */
export function refuseChanged(sent: string | undefined, call: ToolCall, presentation: Presentation | null): void {
  if (sent === undefined || sent === approvalDigest(call, presentation)) return;
  throw new GatehouseError(
    "CHANGED",
    `the call changed since it was shown (its digest is not the one answered): the approval was not applied; look at the call again and answer it anew`,
  );
}
