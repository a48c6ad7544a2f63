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

/**
 * The paths a decision took into account and where it took each to lead, sent with the call it
 * let run: the worker runs the call only when each leads there still, and answers with `moved`
 * (where they lead) when one does not.
 */
export const AssumedPaths = z.record(AbsolutePath, Resolved).refine((paths) => Object.keys(paths).length <= MAX_PATHS, `at most ${MAX_PATHS} assumed paths`);
export type AssumedPaths = z.infer<typeof AssumedPaths>;
