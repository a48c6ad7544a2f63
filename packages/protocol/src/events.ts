import { z } from "zod";
import { Action, BatchContext, Decision, Message, Mode, Origin, Presentation, Scope, SessionInfo, Usage } from "./schemas.js";
import { AssumedPaths } from "./real-paths.js";
import { ToolOutput, ToolResultOutcome } from "./tool-output.js";

const base = { sessionId: z.string(), at: z.string() };

export const ApprovalRequired = z.object({
  type: z.literal("tool_approval_required"),
  approvalId: z.string(),
  toolName: z.string(),
  /** The tool call's arguments as a JSON string. */
  arguments: z.string(),
  ...base,
  callId: z.string(),
  tier: z.string(),
  decision: Decision,
  reason: z.string(),
  suggestedPattern: z.string(),
  suggestedPatterns: z.array(z.string()),
  batch: BatchContext,
  presentation: Presentation.nullable(),
  /** A digest of the arguments and the presentation: sent back with `tool.approve`, it makes the approval apply to this call only. */
  digest: z.string().optional(),
  /** Whether `tool.approve` takes `editedArguments` for this call (a network connection's ask, say, cannot be edited). */
  editable: z.boolean().optional(),
});
export type ApprovalRequired = z.infer<typeof ApprovalRequired>;

export const ApprovalOutcome = z.enum(["approved", "denied", "cancelled", "timed_out"]);
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;

export const GatehouseEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("session_created"), ...base, session: SessionInfo }),
  z.object({ type: z.literal("user_message"), ...base, text: z.string() }),
  z.object({ type: z.literal("assistant_text_delta"), ...base, text: z.string() }),
  z.object({
    type: z.literal("assistant_message"),
    ...base,
    message: Message,
    /** Why the model stopped this step, in the provider's words (`stop`, `tool-calls`, `length`, ...). */
    stopReason: z.string(),
    usage: Usage,
  }),
  z.object({ type: z.literal("tool_call_started"), ...base, callId: z.string(), toolName: z.string(), arguments: z.string(), decision: Decision.nullable() }),
  ApprovalRequired,
  z.object({
    type: z.literal("tool_approval_resolved"),
    ...base,
    approvalId: z.string(),
    callId: z.string(),
    outcome: ApprovalOutcome,
    by: z.string().nullable(),
    scope: Scope.nullable(),
    pattern: z.string().nullable(),
    feedback: z.string().nullable(),
    /** The arguments (a JSON string) the person approved the call with, when they edited it; what runs instead of the original. */
    editedArguments: z.string().nullable().optional(),
  }),
  z.object({
    type: z.literal("tool_result"),
    ...base,
    callId: z.string(),
    toolName: z.string(),
    outcome: ToolResultOutcome,
    /** What the tool printed; for a call that did not run, the message the model received. */
    ...ToolOutput.omit({ moved: true }).shape,
    /** From the call's turn in its batch to its result, in milliseconds; a wait for approval included. */
    elapsedMs: z.number(),
  }),
  z.object({
    type: z.literal("turn_ended"),
    ...base,
    reason: z.enum(["completed", "rejected", "aborted", "error", "step_limit"]),
    /** The turn's tokens, every step summed. */
    usage: Usage,
  }),
  z.object({ type: z.literal("session_error"), ...base, code: z.string(), message: z.string() }),
  /**
   * What the session's model is sent was made smaller to fit its context window: old tool results
   * trimmed, then older messages summarised into a checkpoint. The session's history is unchanged.
   */
  z.object({
    type: z.literal("context_compacted"),
    ...base,
    /** `window`: the next request would have passed the configured share of the window; `refused`: the provider refused it as too long. */
    reason: z.enum(["window", "refused"]),
    /** Messages of the history from which on the model is sent them (0: none summarised). */
    summarisedThrough: z.number().int().nonnegative(),
    /** Messages of the history before which long tool results are sent trimmed. */
    trimmedThrough: z.number().int().nonnegative(),
    /** The checkpoint's summary of the messages before `summarisedThrough`; null when only results were trimmed. */
    summary: z.string().nullable(),
    /** The calls refused before the checkpoint, kept word for word in it: denials, rejections and a person's feedback. */
    refusals: z.array(z.string()),
    /** The estimated tokens of the next request, before and after. */
    tokensBefore: z.number(),
    tokensAfter: z.number(),
  }),
  z.object({ type: z.literal("mode_changed"), ...base, mode: Mode }),
  /** A person's `!command` started on the worker; its output follows as `shell_output`, its end as `shell_command`. */
  z.object({ type: z.literal("shell_started"), ...base, commandId: z.string(), command: z.string(), by: z.string() }),
  /** Output of a running `!command` as it comes, stdout and stderr interleaved; the whole is in its `shell_command`. */
  z.object({ type: z.literal("shell_output"), ...base, commandId: z.string(), text: z.string() }),
  z.object({
    type: z.literal("shell_command"),
    ...base,
    commandId: z.string(),
    command: z.string(),
    exitCode: z.number().nullable(),
    output: z.string(),
    stderr: z.string(),
    by: z.string(),
  }),
  z.object({ type: z.literal("worker_connected"), ...base, workerId: z.string() }),
  z.object({ type: z.literal("worker_disconnected"), ...base, workerId: z.string() }),
  /** One of the worker's MCP servers failed (its problem: its error and last stderr lines, its own text) or runs again (problem null). */
  z.object({ type: z.literal("mcp_server"), ...base, workerId: z.string(), server: z.string(), problem: z.string().nullable() }),
  z.object({
    type: z.literal("permissions_invalid"),
    ...base,
    workerId: z.string(),
    file: z.string(),
    line: z.number(),
    column: z.number(),
    message: z.string(),
  }),
]);
export type GatehouseEvent = z.infer<typeof GatehouseEvent>;
export type EventOf<T extends GatehouseEvent["type"]> = Extract<GatehouseEvent, { type: T }>;

const GuardRule = z.object({ tool: z.string(), pattern: z.string(), action: Action, origin: Origin });
export const Guard = z.object({
  agent: z.array(GuardRule).nullable(),
  static: z.array(GuardRule),
  runtime: z.array(GuardRule),
  protectedPaths: z.array(z.string()),
});
export type Guard = z.infer<typeof Guard>;

export const Granted = z.enum(["rules", "edits", "mode", "person"]);
export type Granted = z.infer<typeof Granted>;

/** A tool call a worker is asked to run. */
export const RunMessage = z.object({
  type: z.literal("run"),
  requestId: z.string(),
  sessionId: z.string(),
  toolName: z.string(),
  args: z.record(z.string(), z.unknown()),
  timeoutMs: z.number().int().positive(),
  /** The file rules the worker applies again on real paths before it touches a file (docs/design.md, "What a pattern is matched against"). */
  guard: Guard,
  /**
   * `person`: a command a person typed (`!command`), which the worker runs without the rules' masks.
   * `gate`: the gate's own look at the worker's files before it decides (see real-paths.ts); no tool runs.
   */
  origin: z.enum(["model", "person", "gate"]).optional(),
  /** Send the call's output as it comes (`output` messages on the worker link) before its result. */
  streamOutput: z.boolean().optional(),
  /**
   * Why the server lets the call run: its rules allow it, accept-edits lets an ask through (`edits`:
   * never for an exec-tier act, such as a write to a file that steers programs), another mode does
   * (`mode`: yolo), or a person approved it. Absent means the rules: the worker then refuses
   * whatever is not allowed.
   */
  granted: Granted.optional(),
  /** The paths the server's decision assumed and where it took each to lead: the worker runs the call only if each leads there still. */
  assumed: AssumedPaths.optional(),
});
export type RunMessage = z.infer<typeof RunMessage>;
export const CancelMessage = z.object({ type: z.literal("cancel"), requestId: z.string() });

/** What a worker is asked to do: run a tool call, or stop one. */
export const WorkerMessage = z.discriminatedUnion("type", [RunMessage, CancelMessage]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;
