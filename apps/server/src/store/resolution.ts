import type { ApprovalOutcome, Presentation } from "@gatehouse/protocol";
import type { Decision, Scope } from "@gatehouse/policy";

/** A call a person edited before approving it: the arguments it runs with, the gate's decision for them, and what they showed. */
export interface EditedCall {
  args: Record<string, unknown>;
  decision: Decision;
  shown: Presentation | null;
}

/** How a held call was settled: the answer the store records and the runner acts on. */
export interface Resolution {
  outcome: ApprovalOutcome;
  scope: Scope | null;
  feedback: string | null;
  /** A hard deny: the rest of the batch is rejected and the turn ends. */
  hard: boolean;
  by: string | null;
  /** The patterns an approval saved, joined; null otherwise. */
  pattern?: string | null;
  /** The call as the person edited it before approving it: it runs instead of the original. */
  edited?: EditedCall;
}
