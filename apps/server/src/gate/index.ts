// The approval gate: a call's decision under the worker's rules and the session's layers, the approvals
// held for a person, their answers, and the decision made again just before a call runs.
export type { Coverage } from "./approval-coverage.js";
export { ApprovalGate, type Resolution } from "./approval-gate.js";
export { grantedBy } from "./granted.js";
export { missingToolDecision, missingToolReason } from "./missing-tools.js";
export { NetworkAsks } from "./network-asks.js";
export { ownSecrets } from "./own-secrets.js";
export { present } from "./presentation.js";
export { RunTimeDecisions, type EarlyDecision, type Raised } from "./run-time-decision.js";
export { WorkerPermissions, workerRulesFile } from "./worker-permissions.js";
export { workerRealPaths, type Resolved } from "./worker-real-paths.js";
