import { stricter, subjectArgument, type Action, type Decision, type ToolCall } from "@gatehouse/policy";
import type { AssumedPaths, Presentation, SessionInfo } from "@gatehouse/protocol";
import { uncovered, type Coverage } from "./approval-coverage.js";
import { sameInputs } from "./evaluation-context.js";
import { decideOnRealPaths, type Leads } from "./real-path-decision.js";
import { RealPathsUnknownError, type RealPathLookup, type Resolved } from "./worker-real-paths.js";

/** How a call came to run. */
export interface Raised {
  /** `allow`: the rules allowed it; `ask`: a person approved it. */
  action: Action;
  /** What the approval covers; null for a call the rules allowed. */
  approved: Coverage | null;
  /** The decision its batch was prepared with. */
  early?: EarlyDecision | null | undefined;
}

export interface RunTimeSources {
  evaluate(session: SessionInfo, call: ToolCall, resolveRealPath?: (absolute: string) => string): Decision;
  presentation(session: SessionInfo, call: ToolCall): Promise<Presentation | null>;
  realPaths: RealPathLookup;
  /** What the decision depends on besides the call (ApprovalGate.inputs). */
  inputs(session: SessionInfo, call: ToolCall): readonly unknown[] | null;
}

/**
 * A call's decision made when its batch is prepared, as beforeRun makes it for a worker that
 * checks assumed paths: with each path taken to lead to itself, and the paths it took.
 */
export interface EarlyDecision {
  decision: Decision;
  assumed: AssumedPaths | null;
  /** What it was made with: while these are the same, deciding again gives the same decision. */
  inputs: readonly unknown[] | null;
}

/** How a call about to run is decided: the stricter decision that holds instead, and where the decision took its paths to lead. */
export interface RunVerdict {
  stricter: Decision | null;
  /** For a call on paths decided on them: the worker runs it only if each still leads there. */
  assumed: AssumedPaths | null;
}

type Lookup = (paths: readonly string[]) => Promise<ReadonlyMap<string, Resolved>>;

/** Each path where the worker last said it leads, else to itself: what a call is decided on when no request is made. */
const assume = (paths: readonly string[], reported: ReadonlyMap<string, Resolved> | null): ReadonlyMap<string, Resolved> =>
  new Map(paths.map((p) => [p, reported?.get(p) ?? { real: p }]));

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
    return { shown, leads: (await this.decide(session, call, true, (paths) => this.sources.realPaths(session, paths))).leads };
  }

  /** The decision a batch is prepared with (see EarlyDecision); the same as gate.evaluate's, which decides on names. */
  early(session: SessionInfo, call: ToolCall): EarlyDecision {
    const inputs = this.sources.inputs(session, call);
    if (!onPaths(call)) return { decision: this.sources.evaluate(session, call), assumed: null, inputs };
    const assumed: Record<string, Resolved> = {};
    const decision = this.sources.evaluate(session, call, (p) => {
      assumed[p] = { real: p };
      return p;
    });
    return { decision, assumed, inputs };
  }

  /**
   * Null when the decision the call was raised with holds; else the stricter one, with its reason.
   * Every call is decided again, the first of its batch too: a link made before the batch (by an
   * earlier turn, another session, a person) is judged where it leads before anything runs, and
   * the session's mode cannot let through on a name what its real path would have asked about.
   */
  async check(session: SessionInfo, call: ToolCall, raised: Raised, signal?: AbortSignal): Promise<Decision | null> {
    return (await this.verdict(session, call, raised, (paths) => this.sources.realPaths(session, paths, signal))).stricter;
  }

  /**
   * The same decision without a request to the worker, for a worker that checks assumed paths:
   * the call's paths are taken to lead where the worker last said (`reported`, by a run it
   * refused), else to themselves, and the run message carries those assumptions for the worker to
   * check before it runs the call. Only a call the rules or the mode let run is decided on
   * assumptions, and only when that lets it run: an approved call, and one that would ask or be
   * denied, is decided on the worker's answer, so that its reason, and what an approval covers,
   * are what the paths really are (and a call a person approved never shows a start it then lacks).
   * The decision the batch was prepared with, while its inputs are still the same, stands for this
   * one: made again, it would be the same, and the worker checks the paths it assumed.
   */
  async beforeRun(
    session: SessionInfo,
    call: ToolCall,
    raised: Raised,
    reported: ReadonlyMap<string, Resolved> | null,
    signal?: AbortSignal,
  ): Promise<RunVerdict> {
    return this.kept(session, call, raised, reported) ?? this.madeAgain(session, call, raised, reported, signal);
  }

  /** beforeRun's verdict when the decision the batch was prepared with stands for this one; null when it must be made again. */
  kept(session: SessionInfo, call: ToolCall, raised: Raised, reported: ReadonlyMap<string, Resolved> | null): RunVerdict | null {
    const { early } = raised;
    if (!early || raised.approved || reported || early.decision.action !== raised.action) return null;
    return sameInputs(early.inputs, this.sources.inputs(session, call)) ? { stricter: null, assumed: early.assumed } : null;
  }

  /** beforeRun's verdict once kept() found the prepared decision does not stand: made again, on assumed paths first where that may let it run. */
  async madeAgain(
    session: SessionInfo,
    call: ToolCall,
    raised: Raised,
    reported: ReadonlyMap<string, Resolved> | null,
    signal?: AbortSignal,
  ): Promise<RunVerdict> {
    if (onPaths(call) && !raised.approved) {
      const assumed = await this.verdict(session, call, raised, (paths) => Promise.resolve(assume(paths, reported)));
      if (!assumed.stricter) return assumed;
    }
    return this.verdict(session, call, raised, (paths) => this.sources.realPaths(session, paths, signal));
  }

  private async verdict(session: SessionInfo, call: ToolCall, raised: Raised, lookup: Lookup): Promise<RunVerdict> {
    const { decision, leads, resolved } = await this.decide(session, call, onPaths(call), lookup);
    const assumed = resolved && Object.fromEntries(resolved);
    if (isStricter(decision.action, raised.action))
      return { stricter: { ...decision, reason: `decided again just before it ran: ${decision.reason}` }, assumed };
    if (!raised.approved || decision.action === "allow") return { stricter: null, assumed };
    const why = uncovered(call.tool, raised.approved, { shown: await this.sources.presentation(session, call), leads });
    return { stricter: why ? { ...decision, action: "ask", reason: why } : null, assumed };
  }

  private async decide(
    session: SessionInfo,
    call: ToolCall,
    onRealPaths: boolean,
    lookup: Lookup,
  ): Promise<{ decision: Decision; leads: Leads | null; resolved: ReadonlyMap<string, Resolved> | null }> {
    if (!onRealPaths) return { decision: this.sources.evaluate(session, call), leads: null, resolved: null };
    try {
      return await decideOnRealPaths((resolve) => this.sources.evaluate(session, call, resolve), lookup);
    } catch (err) {
      if (!(err instanceof RealPathsUnknownError)) throw err;
      const decision = this.sources.evaluate(session, call);
      if (decision.action !== "allow") return { decision, leads: null, resolved: null };
      return { decision: { ...decision, action: "ask", rule: null, reason: `${err.message}; where its paths lead is not known` }, leads: null, resolved: null };
    }
  }
}
