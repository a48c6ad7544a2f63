import { z } from "zod";
import { CancelMessage, Guard, RunMessage } from "./events.js";
import { WorkerRegisterInput, WorkerResultInput } from "./procedures.js";

/**
 * The worker link: a WebSocket at this path on the server's port that carries a worker's tool
 * requests and results as plain JSON messages, one per frame. It is the same exchange as the
 * `worker.*` procedures (same schemas, same registry) without tRPC's per-request machinery,
 * which costs about a millisecond a call (docs/benchmarks.md). The token goes in the upgrade
 * request's `Authorization: Bearer` header; a refused token is an HTTP 401 or 403.
 */
export const WORKER_LINK_PATH = "/worker-link";

/** The most characters one `output` message of the worker link carries. */
export const OUTPUT_CHUNK_CHARS = 16_000;

/**
 * A connection that a running call's command makes and the rules ask about: the server raises it
 * as an approval of the call's session (tool `network`) and answers with `network_answer`.
 */
export const NetworkAskMessage = z.object({
  type: z.literal("network_ask"),
  askId: z.string().min(1).max(100),
  requestId: z.string().min(1).max(100),
  host: z.string().min(1).max(255),
  port: z.number().int().min(1).max(65535),
  command: z.string().max(10_000),
});
export type NetworkAskMessage = z.infer<typeof NetworkAskMessage>;

/** A connection of a running call's command that the worker's rules allowed or denied without asking: the server audits it. */
export const NetworkDecidedMessage = z.object({
  type: z.literal("network_decided"),
  requestId: z.string().min(1).max(100),
  host: z.string().min(1).max(255),
  port: z.number().int().min(1).max(65535),
  command: z.string().max(10_000),
  allowed: z.boolean(),
  reason: z.string().max(2_000),
});
export type NetworkDecidedMessage = z.infer<typeof NetworkDecidedMessage>;

/** The server's answer to a `network_ask`: the connection is made, or refused for the reason given. */
export const NetworkAnswerMessage = z.object({ type: z.literal("network_answer"), askId: z.string(), allow: z.boolean(), reason: z.string() });
export type NetworkAnswerMessage = z.infer<typeof NetworkAnswerMessage>;

/** What a worker sends: its registration first, then results (and output as it comes), heartbeats and its tool list when that changes. */
export const LinkFromWorker = z.discriminatedUnion("type", [
  z.object({ type: z.literal("register"), registration: WorkerRegisterInput }),
  z.object({ type: z.literal("result"), ...WorkerResultInput.omit({ workerId: true }).shape }),
  /** Output of a call that asked for it (`streamOutput`), as it comes; its result still carries the whole. */
  z.object({ type: z.literal("output"), requestId: z.string(), text: z.string().max(OUTPUT_CHUNK_CHARS) }),
  /** `beat`: a reading of the worker's own monotonic clock, which the server echoes back in `heartbeat_ack` once it has counted the beat. */
  z.object({ type: z.literal("heartbeat"), beat: z.number().nonnegative().optional() }),
  /** Its tools and MCP servers, when a server came, went or failed. */
  z.object({ type: z.literal("tools"), tools: WorkerRegisterInput.shape.tools, mcpServers: WorkerRegisterInput.shape.mcpServers }),
  NetworkAskMessage,
  NetworkDecidedMessage,
  /** The command ended, or the connection was given up, before the answer came. */
  z.object({ type: z.literal("network_ask_cancel"), askId: z.string().min(1).max(100) }),
]);
export type LinkFromWorker = z.infer<typeof LinkFromWorker>;

/**
 * How many guards each end of a link keeps. A call's guard (its file rules) is sent whole the
 * first time with an id, then by the id alone; both ends forget the least recently used first, and
 * the worker keeps twice as many as the server, so it always has every guard the server refers to.
 */
export const LINK_GUARDS = 32;

/** A tool request on the link: its guard by `guardId`, and whole (`guard`) the first time. */
export const LinkRun = RunMessage.omit({ guard: true }).extend({ guardId: z.number().int().nonnegative(), guard: Guard.optional() });
export type LinkRun = z.infer<typeof LinkRun>;

/** The requests of the link: tool calls and cancels, and answers to network asks. */
export const LinkRequest = z.discriminatedUnion("type", [LinkRun, CancelMessage, NetworkAnswerMessage]);
export type LinkRequest = z.infer<typeof LinkRequest>;

/**
 * The registration's answer. `heartbeatTimeoutMs`: how long the server waits for a heartbeat before it
 * gives the worker up and fails its calls; the worker beats within it and gives the link up first.
 */
interface RegisteredMessage {
  type: "registered";
  heartbeatTimeoutMs?: number;
}

/** The server counted the heartbeat whose `beat` this echoes: until the heartbeat time-out after it was sent, the worker is not given up. */
interface HeartbeatAckMessage {
  type: "heartbeat_ack";
  beat: number;
}

/** What the server sends: tool requests and cancels, the registration's answer, heartbeat acknowledgements, and errors. */
export type LinkToWorker = LinkRequest | RegisteredMessage | HeartbeatAckMessage | { type: "error"; message: string };
