import { z } from "zod";

/**
 * The gate asks a worker where paths really lead (symlinks resolved, dangling ones too) just
 * before a call runs: a run message with `origin: "gate"` and this tool name, which no model
 * call can reach.
 */
export const REAL_PATHS_REQUEST = "real_paths";

/** The most paths one request names: a decision names a handful. */
const MAX_PATHS = 256;

export const RealPathsRequest = z.object({ paths: z.array(z.string().startsWith("/", "a path must be absolute")).max(MAX_PATHS) });
export type RealPathsRequest = z.infer<typeof RealPathsRequest>;

/** Each path's real path, or the error code that stopped its resolution (ELOOP, EACCES, ...). */
export const RealPathsAnswer = z.record(z.string(), z.union([z.object({ real: z.string() }), z.object({ error: z.string() })]));
export type RealPathsAnswer = z.infer<typeof RealPathsAnswer>;
