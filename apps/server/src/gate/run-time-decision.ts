import { stricter, subjectArgument, type Action, type Decision, type ToolCall } from "@gatehouse/policy";
import type { Presentation, SessionInfo } from "@gatehouse/protocol";
import { uncovered, type Coverage } from "./approval-coverage.js";
import { decideOnRealPaths, type Leads } from "./real-path-decision.js";
import { RealPathsUnknownError, type RealPathLookup } from "./worker-real-paths.js";

/** How a call came to run. */
export interface Raised {
  /** `allow`: the rules allowed it; `ask`: a person approved it. */
  action: Action;
  /** What the approval covers; null for a call the rules allowed. */
  approved: Coverage | null;
}

export interface RunTimeSources {
  evaluate(session: SessionInfo, call: ToolCall, resolveRealPath?: (absolute: string) => string): Decision;
  presentation(session: SessionInfo, call: ToolCall): Promise<Presentation | null>;
  realPaths: RealPathLookup;
}

const isStricter = (a: Action, than: Action) => a !== than && stricter(a, than) === a;

/** A file tool opens its path by name in the worker's own process: where that name leads decides. */
const onPaths = (call: ToolCall) => call.tool !== "shell_exec" && subjectArgument(call).kind === "path";

/**
 * Each call decided again just before it runs: with the rules as they are then and, for a call on
 * a path, on the worker's real paths as the batch's earlier calls left them. The stricter of the
 * two decisions holds, and an approval holds only for what the person was shown.
 */
export class RunTimeDecisions {
  constructor(private readonly sources: RunTimeSources) {}

  /** What an approval about to be raised covers: what it shows, and where the call's paths lead now. */
  async cover(session: SessionInfo, call: ToolCall, shown: Presentation | null): Promise<Coverage> {
    if (!onPaths(call)) return { shown, leads: null };
    return { shown, leads: (await this.decide(session, call, true)).leads };
  }

  /**
   * Null when the decision the call was raised with holds; else the stricter one, with its reason.
   * Every call is decided again, the first of its batch too: a link made before the batch (by an
   * earlier turn, another session, a person) is judged where it leads before anything runs, and
   * the session's mode cannot let through on a name what its real path would have asked about.
   */
  async check(session: SessionInfo, call: ToolCall, raised: Raised, signal?: AbortSignal): Promise<Decision | null> {
    const { decision, leads } = await this.decide(session, call, onPaths(call), signal);
    if (isStricter(decision.action, raised.action)) return { ...decision, reason: `decided again just before it ran: ${decision.reason}` };
    if (!raised.approved || decision.action === "allow") return null;
    const why = uncovered(call.tool, raised.approved, { shown: await this.sources.presentation(session, call), leads });
    return why ? { ...decision, action: "ask", reason: why } : null;
  }

  private async decide(session: SessionInfo, call: ToolCall, onRealPaths: boolean, signal?: AbortSignal): Promise<{ decision: Decision; leads: Leads | null }> {
    if (!onRealPaths) return { decision: this.sources.evaluate(session, call), leads: null };
    try {
      return await decideOnRealPaths(
        (resolve) => this.sources.evaluate(session, call, resolve),
        (paths) => this.sources.realPaths(session, paths, signal),
      );
    } catch (err) {
      if (!(err instanceof RealPathsUnknownError)) throw err;
      const decision = this.sources.evaluate(session, call);
      if (decision.action !== "allow") return { decision, leads: null };
      return { decision: { ...decision, action: "ask", rule: null, reason: `${err.message}; where its paths lead is not known` }, leads: null };
    }
  }
}
