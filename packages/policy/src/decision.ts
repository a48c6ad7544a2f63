import type { Action } from "./action.js";
import type { LayerName, RuleRef } from "./rule.js";
import type { Mode } from "./modes.js";
import type { Steering } from "./steering-files.js";
import type { Tier } from "./tiers.js";

/** What a shell sub-command is, for "always" patterns. */
export interface CommandInfo {
  words: string[];
  /** For a wrapper: where its inner command starts, and whether it is sudo-like. */
  wrapper?: { innerIndex: number; privileged: boolean };
}

/** The decision for one subject: a path, a sub-command, a redirection target. */
export interface Verdict {
  action: Action;
  subject: string;
  rule: RuleRef | null;
  reason: string;
  command?: CommandInfo;
  /** A write to a file that decides what an allowed program runs. */
  steers?: Steering;
  /** Asks although the rules allow the command: no pattern an "always" answer saves would open it. */
  pastRules?: true;
}

/** The whole decision for one tool call, with its explanation (docs/design.md, "Decisions"). */
export interface Decision {
  action: Action;
  tool: string;
  layer: LayerName | null;
  rule: RuleRef | null;
  pattern: string | null;
  subject: string;
  reason: string;
  tier: Tier;
  mode: Mode;
  /** What the rules said before the mode and safety overrides. */
  ruleAction: Action;
  /** Why the call matched a critical pattern, or null. */
  critical: string | null;
  /** Shell calls: one entry per sub-command and per file it touches. */
  subcommands: Verdict[];
}
