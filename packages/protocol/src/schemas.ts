import { ACTIONS, LAYERS, MODES, ORIGINS, SCOPES, TIERS, type Decision as PolicyDecision, type RuleRef as PolicyRuleRef } from "@gatehouse/policy";
import { z } from "zod";
import { boundedDepth } from "./json-depth.js";

const id = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .max(200, `${what} is too long`);

export const SessionId = id("sessionId");
export const ApprovalId = id("approvalId");
export const WorkerId = id("workerId").regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "workerId may hold letters, digits, '.', '_' and '-' only");
export const Action = z.enum(ACTIONS);
export const Mode = z.enum(MODES);
export type Mode = z.infer<typeof Mode>;
export const Tier = z.enum(TIERS);
export const Layer = z.enum(LAYERS);
export const Origin = z.enum(ORIGINS);
export const Scope = z.enum(SCOPES);

export const RuleRef = z.object({
  tool: z.string(),
  pattern: z.string(),
  action: Action,
  origin: Origin,
  layer: Layer,
  file: z.string().optional(),
  line: z.number().optional(),
  column: z.number().optional(),
});

export const Verdict = z.object({
  action: Action,
  subject: z.string(),
  rule: RuleRef.nullable(),
  reason: z.string(),
});

/** The gate's explanation of one decision (docs/design.md, "Decisions"). */
export const Decision = z.object({
  action: Action,
  tool: z.string(),
  layer: Layer.nullable(),
  rule: RuleRef.nullable(),
  pattern: z.string().nullable(),
  subject: z.string(),
  reason: z.string(),
  tier: Tier,
  mode: Mode,
  ruleAction: Action,
  critical: z.string().nullable(),
  subcommands: z.array(Verdict),
});
export type Decision = z.infer<typeof Decision>;

// The schemas describe the policy's own types: a change on either side fails to compile here.
const _policyShapes = { ruleRef: {} as z.infer<typeof RuleRef>, decision: {} as Decision } satisfies { ruleRef: PolicyRuleRef; decision: PolicyDecision };

export const BatchContext = z.object({
  index: z.number().int(),
  total: z.number().int(),
  remaining: z.array(z.object({ toolName: z.string(), arguments: z.string() })),
});
export type BatchContext = z.infer<typeof BatchContext>;

/** What a person sees before answering: a diff, a command with its directory, or text. */
const LookAlikeWord = z.object({ word: z.string(), scripts: z.array(z.string()) });
const OutOfSight = z.object({ line: z.number().int(), lastLine: z.number().int().optional(), what: z.string() });

export const Presentation = z.object({
  kind: z.enum(["diff", "command", "text"]),
  /** Safe to print: every control, bidi and invisible code point written as a visible escape (docs/protocol.md). */
  content: z.string(),
  cwd: z.string().optional(),
  truncated: z.boolean(),
  fullSize: z.number().int(),
  /** How many invisible code points the whole content has (each shown escaped), and which escapes. */
  hidden: z.number().int().optional(),
  hiddenKinds: z.array(z.string()).optional(),
  /** Words that mix look-alike scripts (`c\u0430t`). */
  lookAlikes: z.array(LookAlikeWord).optional(),
  /** What the cut content left out of sight, and where. */
  cuts: z.array(OutOfSight).optional(),
});
export type Presentation = z.infer<typeof Presentation>;

export const SessionInfo = z.object({
  id: SessionId,
  workerId: z.string(),
  agent: z.string(),
  /** `provider:model`, or `scripted` for the deterministic scenario player. */
  model: z.string(),
  mode: Mode,
  parentId: z.string().nullable(),
  createdAt: z.string(),
  status: z.enum(["idle", "running", "closed"]),
});
export type SessionInfo = z.infer<typeof SessionInfo>;

/** Tokens a model reported for a step or a turn; null where the provider said nothing. */
export const Usage = z.object({ inputTokens: z.number().nullable(), outputTokens: z.number().nullable() });
export type Usage = z.infer<typeof Usage>;

export const ToolCallRecord = z.object({ callId: z.string(), toolName: z.string(), arguments: z.string() });

export const Message = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), text: z.string() }),
  z.object({ role: z.literal("assistant"), text: z.string(), toolCalls: z.array(ToolCallRecord) }),
  z.object({ role: z.literal("tool"), callId: z.string(), toolName: z.string(), content: z.string(), isError: z.boolean() }),
]);
export type Message = z.infer<typeof Message>;

/** Where an MCP tool comes from: what an approval prompt shows besides the arguments. */
export const McpOrigin = z.object({
  server: z.string().max(200),
  tool: z.string().max(200),
  /** The tool's annotations as its server declares them (readOnlyHint, destructiveHint, ...). */
  annotations: boundedDepth(z.record(z.string(), z.unknown()), "annotations"),
});
export type McpOrigin = z.infer<typeof McpOrigin>;

export const ToolDescriptor = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(4000),
  inputSchema: boundedDepth(z.record(z.string(), z.unknown()), "inputSchema"),
  tier: Tier,
  mcp: McpOrigin.optional(),
});
export type ToolDescriptor = z.infer<typeof ToolDescriptor>;

/** The longest problem a worker reports for one MCP server; it cuts its own to fit. */
export const MCP_PROBLEM_MAX = 10_000;

/** One of a worker's MCP servers: running, or why not (its error and its last stderr lines, its own text: show it as such). */
export const McpServerStatus = z.object({
  name: z.string().min(1).max(64),
  running: z.boolean(),
  problem: z.string().max(MCP_PROBLEM_MAX).nullable(),
});
export type McpServerStatus = z.infer<typeof McpServerStatus>;

/** One action or a map of pattern to action, as in permissions.jsonc. */
const ActionWord = z.enum(ACTIONS, { error: (issue) => `${JSON.stringify(issue.input)} is not an action: use allow, deny or ask` });
export const PermissionMap = z.record(
  z.string(),
  z.union([ActionWord, z.record(z.string(), ActionWord)], {
    error: (issue) => `${JSON.stringify(issue.input)} is not an action (allow, deny, ask) or a map of pattern to action`,
  }),
  { error: "must be a map of tool name to action" },
);
export type PermissionMap = z.infer<typeof PermissionMap>;

/** The server's own agent types; a worker's agent file cannot take these names. */
export const BUILTIN_AGENT_NAMES = ["explore", "general"] as const;
export type BuiltinAgentName = (typeof BUILTIN_AGENT_NAMES)[number];

/** An agent type a worker offers, read from its agents folder (docs/design.md, "Agents and models"). */
export const AgentDefinition = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "an agent name may hold letters, digits, '.', '_' and '-' only")
    .max(100),
  description: z.string().max(2000),
  /** The agent's instructions, added to its system prompt. */
  prompt: z.string().max(100_000),
  permission: PermissionMap.nullable(),
  model: z.string().max(200).nullable(),
  maySpawn: z.boolean(),
  file: z.string().max(4096),
  /**
   * Whether the agent's rules may allow what the worker's rules do not: only for agents from a
   * place the agent cannot write (the worker's configured agents folder). Absent or false, its
   * allows are dropped and it may not start subagents: it can only narrow.
   */
  mayWiden: z.boolean().optional(),
});
export type AgentDefinition = z.infer<typeof AgentDefinition>;

export const SkillInfo = z.object({ name: z.string().max(200), description: z.string().max(2000) });
export type SkillInfo = z.infer<typeof SkillInfo>;

/** How a worker runs shell commands: inside bubblewrap (active) or not, and why. */
export const SandboxInfo = z.object({
  mode: z.enum(["required", "auto", "off"]),
  active: z.boolean(),
  network: z.boolean(),
  /** With network: through the worker's proxy under the `network` rules, or the host's whole network. */
  egress: z.enum(["proxy", "host"]).optional(),
  detail: z.string().max(1000),
});
export type SandboxInfo = z.infer<typeof SandboxInfo>;

/** A registered worker as clients see it: where it works, whether it is connected, what it offers. */
export const WorkerInfo = z.object({
  id: z.string(),
  workDir: z.string(),
  connected: z.boolean(),
  tools: z.array(ToolDescriptor.pick({ name: true, description: true, tier: true })),
  /** Every agent type a session on it may take: the built-in ones and its agent files'. */
  agents: z.array(z.string()),
  skills: z.array(SkillInfo),
  /** How the worker runs shell commands; null for a worker that did not say. */
  sandbox: SandboxInfo.nullable(),
  /** Its MCP servers, running or not. */
  mcpServers: z.array(McpServerStatus),
});
export type WorkerInfo = z.infer<typeof WorkerInfo>;
