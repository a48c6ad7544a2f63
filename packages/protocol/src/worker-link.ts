import { z } from "zod";
import { WorkerMessage } from "./events.js";
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

/** What a worker sends: its registration first, then results (and output as it comes), heartbeats and its tool list when that changes. */
export const LinkFromWorker = z.discriminatedUnion("type", [
  z.object({ type: z.literal("register"), registration: WorkerRegisterInput }),
  z.object({ type: z.literal("result"), ...WorkerResultInput.omit({ workerId: true }).shape }),
  /** Output of a call that asked for it (`streamOutput`), as it comes; its result still carries the whole. */
  z.object({ type: z.literal("output"), requestId: z.string(), text: z.string().max(OUTPUT_CHUNK_CHARS) }),
  z.object({ type: z.literal("heartbeat") }),
  z.object({ type: z.literal("tools"), tools: WorkerRegisterInput.shape.tools }),
]);
export type LinkFromWorker = z.infer<typeof LinkFromWorker>;

/** What the server sends: tool requests and cancels, the registration's answer, and errors. */
export type LinkToWorker = WorkerMessage | { type: "registered" } | { type: "error"; message: string };
