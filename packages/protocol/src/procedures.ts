import { z } from "zod";
import {
  AgentDefinition,
  ApprovalId,
  Decision,
  McpServerStatus,
  Message,
  Mode,
  SandboxInfo,
  Scope,
  SessionId,
  SessionInfo,
  SkillInfo,
  ToolDescriptor,
  WorkerId,
} from "./schemas.js";
import { boundedDepth } from "./json-depth.js";
import { ToolOutput } from "./tool-output.js";

const text = (what: string, max: number) => z.string({ error: `${what} must be a string` }).max(max, `${what} is longer than ${max} characters`);

export const SessionCreateInput = z.object({
  workerId: WorkerId,
  agent: z.string().min(1).max(100).default("general"),
  mode: Mode.default("default"),
  /** `provider:model`; the server's configured model when absent. */
  model: z.string().min(1).max(200).optional(),
  /** For the scripted provider: the scenario to play (a file on the server, or a built-in name). */
  scenario: z.string().max(4096).optional(),
});
export const SessionRef = z.object({ sessionId: SessionId });
export const SessionGetOutput = z.object({ session: SessionInfo, history: z.array(Message) });
export const SessionSetModeInput = z.object({ sessionId: SessionId, mode: Mode });
export const SessionShellInput = z.object({ sessionId: SessionId, command: text("command", 100_000).min(1, "command must not be empty") });
export const ShellOutput = z.object({ exitCode: z.number().nullable(), stdout: z.string(), stderr: z.string() });

export const PromptInput = z.object({ sessionId: SessionId, text: text("text", 1_000_000).min(1, "text must not be empty") });
export const OnEventsInput = z.object({ sessionId: SessionId.optional(), lastEventId: z.string().nullish() }).default({});

export const ApproveInput = z.object({
  sessionId: SessionId,
  approvalId: ApprovalId,
  always: z.boolean().optional(),
  scope: Scope.optional(),
  pattern: text("pattern", 1000).min(1, "pattern must not be empty").optional(),
  /** Every pattern to save, each as the person edited it; replaces the suggested patterns (and `pattern`). */
  patterns: z.array(text("pattern", 1000).min(1, "pattern must not be empty")).min(1, "patterns must not be empty").max(50, "at most 50 patterns").optional(),
  /** The `digest` of the event the person answered: refused when the pending call no longer matches it. */
  digest: text("digest", 200).optional(),
  /**
   * The call's arguments as the person edited them: the whole new argument object for the same
   * tool. The edited call is checked and decided as a call of its own, and runs instead of the original.
   */
  editedArguments: boundedDepth(
    z.record(z.string(), z.unknown(), { error: "editedArguments must be an object of argument names to values" }),
    "editedArguments",
  ).optional(),
  /** Confirms an edited call that matches a critical pattern: without it such an edit is refused. */
  confirmCritical: z.boolean().optional(),
});
export type ApproveInput = z.infer<typeof ApproveInput>;
/** Edited arguments checked without answering: what the gate makes of the edited call, for a client to show before the person approves it. */
export const CheckEditInput = ApproveInput.pick({ sessionId: true, approvalId: true }).extend({ editedArguments: ApproveInput.shape.editedArguments.unwrap() });
export type CheckEditInput = z.infer<typeof CheckEditInput>;
export const DenyInput = z.object({
  sessionId: SessionId,
  approvalId: ApprovalId,
  feedback: text("feedback", 10_000).optional(),
  mode: z.enum(["soft", "hard"]).optional(),
});
export type DenyInput = z.infer<typeof DenyInput>;
export const Applied = z.object({ applied: z.boolean() });
export const ViewInput = z.object({ sessionId: SessionId, approvalId: ApprovalId });

/** The most MCP servers one worker has. */
export const MAX_MCP_SERVERS = 100;

/** The most tools one worker registers (its built-ins and its MCP servers' tools together). */
export const MAX_WORKER_TOOLS = 1000;

export const WorkerRegisterInput = z.object({
  workerId: WorkerId,
  workDir: z.string().min(1).startsWith("/", "workDir must be an absolute path"),
  /** The worker's home directory: what `~` and `$HOME` mean in its rules and calls. The server's own when absent. */
  home: z.string().min(1).max(4096).startsWith("/", "home must be an absolute path").optional(),
  tools: z.array(ToolDescriptor).max(MAX_WORKER_TOOLS),
  agents: z.array(AgentDefinition).max(200).default([]),
  skills: z.array(SkillInfo).max(1000).default([]),
  /** Absent from workers that predate the sandbox: shown as unknown. */
  sandbox: SandboxInfo.optional(),
  /**
   * The worker checks a run message's `assumed` paths before the call runs. Absent from workers
   * that predate it: the server asks those where a call's paths lead before each file call instead.
   */
  checksAssumedPaths: z.boolean().optional(),
  /** Its MCP servers after their first attempt: running, or why not. */
  mcpServers: z.array(McpServerStatus).max(MAX_MCP_SERVERS).default([]),
});
export type WorkerRegisterInput = z.infer<typeof WorkerRegisterInput>;
export const WorkerRef = z.object({ workerId: WorkerId });
export const WorkerResultInput = z.object({
  workerId: WorkerId,
  requestId: z.string().min(1).max(200),
  ...ToolOutput.shape,
});

const LintIssue = z.object({ line: z.number(), column: z.number(), message: z.string() });
export const PermissionsGetOutput = z.object({ file: z.string(), text: z.string(), error: z.string().nullable(), warnings: z.array(LintIssue) });

export const PermissionsExplainInput = z.object({
  workerId: WorkerId,
  sessionId: SessionId.optional(),
  tool: z.string().min(1).max(200),
  args: boundedDepth(z.record(z.string(), z.unknown()), "args"),
  mode: Mode.optional(),
});
export const PermissionsExplainOutput = z.object({ decision: Decision, suggestedPatterns: z.array(z.string()) });

const IsoTime = z.iso.datetime({ offset: true, error: "a time in ISO 8601, such as 2026-01-31T12:00:00Z" });

/** Which audit entries to read; every field narrows (docs/protocol.md). */
export const AuditQueryInput = z.object({
  sessionId: SessionId.optional(),
  workerId: WorkerId.optional(),
  toolName: z.string().min(1).max(200).optional(),
  /** allow, deny, ask, approved, denied, cancelled, timed_out, user_shell */
  action: z.string().min(1).max(50).optional(),
  /** Who answered or typed the command. */
  by: z.string().min(1).max(200).optional(),
  /** Entries at or after this time. */
  since: IsoTime.optional(),
  /** Entries before this time. */
  until: IsoTime.optional(),
  /** The newest this many (returned oldest first); 1000 when absent. */
  limit: z.number().int().min(1).max(100_000).default(1000),
});
export const AuditEntry = z.object({
  at: z.string(),
  sessionId: z.string(),
  workerId: z.string(),
  toolName: z.string(),
  arguments: z.string(),
  action: z.string(),
  reason: z.string(),
  rule: z.string().nullable(),
  by: z.string().optional(),
});

/** Who a client token is and what its role lets it do (docs/operations.md). */
export const WhoAmI = z.object({
  name: z.string(),
  role: z.enum(["admin", "approver", "viewer"]),
  /** The workers whose sessions it may see; "*" is any. */
  workers: z.array(z.string()),
  /** Whether it may run a person's `!command`. */
  shell: z.boolean(),
});
