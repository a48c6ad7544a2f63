import { z } from "zod";

/**
 * The gate asks a worker where paths really lead (symlinks resolved, dangling ones too): a run
 * message with `origin: "gate"` and this tool name, which no model call can reach. A worker that
 * checks a run message's assumed paths itself (`checksAssumedPaths`) is asked only when a call
 * asks a person or is refused; one that does not is asked before each call on a path runs.
 */
export const REAL_PATHS_REQUEST = "real_paths";

/** The most paths one request names: a decision names a handful. */
const MAX_PATHS = 256;

const AbsolutePath = z.string().startsWith("/", "a path must be absolute");

export const RealPathsRequest = z.object({ paths: z.array(AbsolutePath).max(MAX_PATHS) });
export type RealPathsRequest = z.infer<typeof RealPathsRequest>;

/** Where one path leads, or the error code that stopped its resolution (ELOOP, EACCES, ...). */
export const Resolved = z.union([z.object({ real: z.string() }), z.object({ error: z.string() })]);
export type Resolved = z.infer<typeof Resolved>;

/** Each path's real path, or the error code that stopped its resolution. */
export const RealPathsAnswer = z.record(z.string(), Resolved);
export type RealPathsAnswer = z.infer<typeof RealPathsAnswer>;

const isResolved = (r: unknown): boolean => {
  if (typeof r !== "object" || r === null) return false;
  const keys = Object.keys(r);
  return keys.length === 1 && (keys[0] === "real" || keys[0] === "error") && typeof (r as Record<string, unknown>)[keys[0]] === "string";
};

const isAssumed = (v: unknown): boolean => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const entries = Object.entries(v);
  return entries.length <= MAX_PATHS && entries.every(([p, r]) => p.startsWith("/") && isResolved(r));
};

/**
 * The paths a decision took into account and where it took each to lead, sent with the call it
 * let run: the worker runs the call only when each leads there still, and answers with `moved`
 * (where they lead) when one does not. Checked by hand: it comes with every call, and as a zod
 * record of unions it cost more than the rest of the run message.
 */
export const AssumedPaths = z.custom<Record<string, Resolved>>(isAssumed, `expected at most ${MAX_PATHS} absolute paths, each to { real } or { error }`);
export type AssumedPaths = z.infer<typeof AssumedPaths>;
