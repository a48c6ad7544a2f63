import fs from "node:fs";
import path from "node:path";
import { MODES } from "@gatehouse/policy/modes";
import { CliError } from "./cli-error.js";
import type { OptionTable } from "./options.js";
import { SANDBOX_OPTIONS } from "./sandbox-flags.js";

/** A directory flag made absolute; a path that is not an existing directory is a usage error. */
export function existingDir(flag: string, value: string): string {
  const dir = path.resolve(value);
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new CliError(`--${flag}: ${dir} is not a directory`);
  return dir;
}

/** A whole number; anything else is an error naming where it came from. */
export function wholeNumber(text: string, source: string): number {
  if (!/^\d+$/.test(text)) throw new CliError(`${source} must be a whole number (got "${text}")`);
  return Number(text);
}

export type TlsFlag = "auto" | "self-signed" | "off" | { cert: string; key: string };

/** `--tls`: a mode, or the certificate and key files as `CERT,KEY`. */
export function tlsSetting(text: string, source: string): TlsFlag {
  if (text === "auto" || text === "self-signed" || text === "off") return text;
  const files = text.split(",");
  if (files.length !== 2 || files.some((f) => f.trim() === "")) {
    throw new CliError(`${source} must be auto, self-signed, off or CERT,KEY (two PEM files, separated by a comma; got "${text}")`);
  }
  return { cert: path.resolve(files[0]!.trim()), key: path.resolve(files[1]!.trim()) };
}

export const MODE_OPTION = {
  mode: { value: "MODE", help: "the session's permission mode", choices: MODES },
} as const satisfies OptionTable;

/** The options that choose a model: `--model provider:model`, and for its provider a base URL and the API key's variable. */
export const MODEL_OPTIONS = {
  model: { value: "PROVIDER:MODEL", help: "the model sessions use (docs/models.md); none: the scripted model", env: "GATEHOUSE_MODEL" },
  "base-url": { value: "URL", help: "the model provider's endpoint", env: "GATEHOUSE_BASE_URL" },
  "api-key-env": { value: "NAME", help: "the environment variable holding the model's API key", env: "GATEHOUSE_API_KEY_ENV" },
} as const satisfies OptionTable;

/** The options of the embedded server and worker of `gatehouse` and `gatehouse run`. */
export const LOCAL_OPTIONS = {
  dir: { value: "DIR", help: "the folder the worker works in (default: here)" },
  "data-dir": { value: "DIR", help: "where the server keeps its state", env: "GATEHOUSE_DATA_DIR" },
  scenario: { value: "FILE", help: "a scenario the scripted model plays" },
  mcp: { value: "FILE", help: "MCP servers whose tools the worker offers (docs/mcp.md)" },
  ...MODEL_OPTIONS,
  ...SANDBOX_OPTIONS,
} as const satisfies OptionTable;

export interface ModelChoice {
  model?: string | undefined;
  baseURL?: string | undefined;
  apiKeyEnv?: string | undefined;
}

export function modelChoice(values: { model?: string | undefined; "base-url"?: string | undefined; "api-key-env"?: string | undefined }): ModelChoice {
  return { model: values.model, baseURL: values["base-url"], apiKeyEnv: values["api-key-env"] };
}
