import fs from "node:fs";
import path from "node:path";
import { isMode, MODES, type Mode } from "@gatehouse/policy";
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
