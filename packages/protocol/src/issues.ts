import type { ZodError } from "zod";

/** Zod issues as one line that names each field: `approvalId: approvalId must be a string`. */
export function describeIssues(error: ZodError): string {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "input"}: ${i.message}`).join("; ");
}
