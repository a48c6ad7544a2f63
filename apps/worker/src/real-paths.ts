import { resolveRealPath } from "@gatehouse/fs-guard";
import { describeIssues, RealPathsRequest, type AssumedPaths, type RealPathsAnswer, type Resolved, type ToolOutput } from "@gatehouse/protocol";
import { PathsMovedError } from "./errors.js";

/**
 * Where a path leads on this machine now, by the resolution the worker's own file check uses. Not
 * the check's copy kept for a synchronous run: calls that follow each other without I/O in between
 * share one run, and this answer must be fresh for each.
 */
function resolve(p: string): Resolved {
  try {
    return { real: resolveRealPath(p) };
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code ?? "EUNKNOWN" };
  }
}

const same = (a: Resolved, b: Resolved) => ("real" in a ? "real" in b && a.real === b.real : "error" in b && a.error === b.error);

/** Where each path really leads: the gate decides on these a call that asks a person or is refused. */
export function realPaths(args: unknown): ToolOutput {
  const parsed = RealPathsRequest.safeParse(args);
  if (!parsed.success) return { ok: false, output: `invalid real-paths request: ${describeIssues(parsed.error)}` };
  const answer: RealPathsAnswer = {};
  for (const p of parsed.data.paths) answer[p] = resolve(p);
  return { ok: true, output: JSON.stringify(answer) };
}

/**
 * Null when every path the server's decision assumed leads where it assumed, just before the call
 * runs; else where each of them leads now, for the server to decide the call again on. The call
 * does not run then: its decision was made for another file.
 */
export function movedPaths(assumed: AssumedPaths, opened?: { named: string; real: string }): RealPathsAnswer | null {
  const now: RealPathsAnswer = {};
  let moved = false;
  for (const [p, was] of Object.entries(assumed)) {
    // The path a tool opened leads where its descriptor says; every other one is resolved afresh.
    now[p] = p === opened?.named ? { real: opened.real } : resolve(p);
    moved ||= !same(was, now[p]);
  }
  return moved ? now : null;
}

/**
 * The check on the object a tool really opened (or the folder it makes a new file in): its real
 * path, read back from the descriptor, against where the decision took the tool's path to lead,
 * and every other path the decision assumed resolved afresh. Throws PathsMovedError, with where
 * the paths lead now, when one differs: a name swapped to a symlink between the decision and the
 * open leads here, not to another file.
 */
export function checkAssumedOpened(assumed: AssumedPaths | undefined, named: string, real: string): void {
  if (!assumed) return;
  const was = assumed[named];
  const only = was !== undefined && Object.keys(assumed).length === 1;
  if (only && same(was, { real })) return;
  const moved = movedPaths(assumed, { named, real });
  if (moved) throw new PathsMovedError(moved);
}

/**
 * Before a tool opens its path: where the worker's own check of the name just found it leads
 * (`looked`), against where the decision assumed. A difference, confirmed afresh, answers the call
 * moved before anything is opened: opening a FIFO or a device acts on it (a writer waiting on a
 * FIFO goes on). The check after the open still holds for a name swapped after this look.
 */
export function checkAssumedBeforeOpen(assumed: AssumedPaths | undefined, named: string, looked: string): void {
  const was = assumed?.[named];
  if (was && !same(was, { real: looked })) checkAssumed(assumed);
}

/** The same check for a tool that opens nothing of its path's (a search root that does not open): every assumed path resolved afresh. */
export function checkAssumed(assumed: AssumedPaths | undefined): void {
  const moved = assumed && movedPaths(assumed);
  if (moved) throw new PathsMovedError(moved);
}

/** The result of a call that did not run: its paths lead elsewhere than its decision assumed. */
export function movedResult(moved: RealPathsAnswer): ToolOutput {
  const where = Object.entries(moved).map(([p, r]) => `${p} -> ${"real" in r ? r.real : `unresolvable (${r.error})`}`);
  return { ok: false, output: `not run: its paths lead elsewhere than its decision assumed (${where.join(", ")})`, moved };
}
