import { z } from "zod";
import { RealPathsAnswer } from "./real-paths.js";

/**
 * What a tool call produced on the worker, as typed data: the output, and for a process its
 * stderr and exit code (null when it was killed). `truncated`: the output was cut to the
 * worker's limit; `timedOut`: the call ran out of time and was stopped; `moved`: the call did not
 * run, since a path its decision assumed leads elsewhere now (where each of them leads).
 */
export const ToolOutput = z.object({
  ok: z.boolean(),
  output: z.string().max(10_000_000),
  exitCode: z.number().int().nullable().optional(),
  stderr: z.string().max(10_000_000).optional(),
  truncated: z.boolean().optional(),
  timedOut: z.boolean().optional(),
  moved: RealPathsAnswer.optional(),
});
export type ToolOutput = z.infer<typeof ToolOutput>;

/**
 * How a tool call ended: it ran (`ok`, `failed`, `timed_out`), or it did not (a rule denied it, a
 * person rejected it, it was cancelled or nobody answered in time).
 */
export const ToolResultOutcome = z.enum(["ok", "failed", "denied", "rejected", "cancelled", "timed_out"]);
export type ToolResultOutcome = z.infer<typeof ToolResultOutcome>;

/** A result as text, as a model reads it: the output, then stderr and the exit code where the tool gave them. */
export function toolOutputText(result: ToolOutput): string {
  const stderr = result.stderr ? `\n--- stderr ---\n${result.stderr}` : "";
  const exit = result.exitCode === undefined ? "" : `\nexit code: ${result.exitCode ?? "none"}`;
  return `${result.output}${stderr}${exit}`;
}
