import os from "node:os";
import path from "node:path";
import type { EvaluationContext } from "../evaluate.js";
import type { Mode } from "../modes.js";
import type { Layers } from "../ruleset.js";
import type { Tier } from "../tiers.js";

/** The home directory `~` and `$HOME` stand for, on this machine. */
export function homeDirectory(): string {
  return os.homedir();
}

export interface ContextParts {
  layers: Layers;
  /** The worker's work directory: relative paths resolve against it. */
  workDir: string;
  /** The worker's home; this machine's when not given. */
  home?: string | undefined;
  mode?: Mode | undefined;
  tier?: Tier | undefined;
  protectedPaths?: readonly string[] | undefined;
  /** Where the files are on this machine: resolves symlinks before a path is judged. */
  resolveRealPath?: ((absolute: string) => string) | undefined;
}

/** The one way the server, the worker and the CLI build what `evaluate` and `decideFile` take. */
export function evaluationContext(parts: ContextParts): EvaluationContext {
  return {
    layers: parts.layers,
    cwd: path.resolve(parts.workDir),
    home: parts.home ?? homeDirectory(),
    protectedPaths: (parts.protectedPaths ?? []).map((p) => path.resolve(p)),
    ...(parts.mode ? { mode: parts.mode } : {}),
    ...(parts.tier ? { tier: parts.tier } : {}),
    ...(parts.resolveRealPath ? { resolveRealPath: parts.resolveRealPath } : {}),
  };
}
