import { resolveRealPath } from "@gatehouse/fs-guard";
import { describeIssues, RealPathsRequest, type RealPathsAnswer, type ToolOutput } from "@gatehouse/protocol";

/**
 * Where each path really leads on this machine, by the same resolution the worker's own check
 * uses: the gate decides a call again on these just before it runs.
 */
export function realPaths(args: unknown): ToolOutput {
  const parsed = RealPathsRequest.safeParse(args);
  if (!parsed.success) return { ok: false, output: `invalid real-paths request: ${describeIssues(parsed.error)}` };
  const answer: RealPathsAnswer = {};
  for (const p of parsed.data.paths) {
    try {
      answer[p] = { real: resolveRealPath(p) };
    } catch (err) {
      answer[p] = { error: (err as NodeJS.ErrnoException).code ?? "EUNKNOWN" };
    }
  }
  return { ok: true, output: JSON.stringify(answer) };
}
