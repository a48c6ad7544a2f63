import fs from "node:fs";
import path from "node:path";
import { isMode, MODES, type Mode } from "@gatehouse/policy";
import { loadMcpConfig, McpConfigError, type McpServerConfig } from "@gatehouse/worker";
import { CliError } from "./cli-error.js";

/** A `--mode` value checked against the modes; undefined when the flag was not given. */
export function parseMode(value: string | undefined): Mode | undefined {
  if (value === undefined) return undefined;
  if (!isMode(value)) throw new CliError(`--mode must be one of ${MODES.join(", ")} (got "${value}")`);
  return value;
}

/** A directory flag made absolute; a path that is not an existing directory is a usage error. */
export function existingDir(flag: string, value: string): string {
  const dir = path.resolve(value);
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new CliError(`--${flag}: ${dir} is not a directory`);
  return dir;
}

/** The MCP servers an `--mcp` file lists for a worker on `dir`; none without the flag. */
export function mcpServersFlag(file: string | undefined, dir: string): McpServerConfig[] {
  if (file === undefined) return [];
  try {
    return loadMcpConfig(path.resolve(file), dir);
  } catch (err) {
    if (err instanceof McpConfigError) throw new CliError(`--mcp: ${err.message}`);
    throw err;
  }
}

/** The flags that choose a model: `--model provider:model`, and for its provider a base URL and the API key's variable. */
export const MODEL_FLAGS = {
  model: { type: "string" },
  "base-url": { type: "string" },
  "api-key-env": { type: "string" },
} as const;

export interface ModelChoice {
  model?: string | undefined;
  baseURL?: string | undefined;
  apiKeyEnv?: string | undefined;
}

export function modelChoice(values: { model?: string | undefined; "base-url"?: string | undefined; "api-key-env"?: string | undefined }): ModelChoice {
  return { model: values.model, baseURL: values["base-url"], apiKeyEnv: values["api-key-env"] };
}
