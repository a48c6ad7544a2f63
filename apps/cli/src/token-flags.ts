import fs from "node:fs";
import { CliError } from "./cli-error.js";
import type { OptionTable } from "./options.js";

/** Which token a command takes: its environment variable, and how help names it. */
export interface TokenKind {
  env: string;
  help: string;
}

export const WORKER_TOKEN: TokenKind = { env: "GATEHOUSE_WORKER_TOKEN", help: "a worker token of the server" };
export const CLIENT_TOKEN: TokenKind = { env: "GATEHOUSE_CLIENT_TOKEN", help: "a client token of the server" };

/**
 * A token's flags: a file to read it from, or the token itself. The environment variable is read
 * here rather than by the option table, so that a token given on the command line (where every
 * process on the machine can read it) is known and warned about.
 */
export function tokenOptions(kind: TokenKind) {
  return {
    "token-file": { value: "FILE", help: `a file holding ${kind.help} (its first line)`, env: `${kind.env}_FILE` },
    token: { value: "TOKEN", help: `${kind.help}; prefer ${kind.env} or --token-file, as a flag is readable by every process` },
  } as const satisfies OptionTable;
}

interface TokenValues {
  token?: string | undefined;
  "token-file"?: string | undefined;
}

function readTokenFile(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new CliError(`--token-file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const token = text.split(/\r?\n/, 1)[0]!.trim();
  if (!token) throw new CliError(`--token-file: ${file} is empty; it should hold the token on its first line`);
  return token;
}

/** The token from --token-file, else --token (with a warning), else the environment; undefined when none is given. */
export function tokenFrom(
  values: TokenValues,
  kind: TokenKind,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (values.token !== undefined && values["token-file"] !== undefined) throw new CliError("give --token or --token-file, not both");
  if (values["token-file"] !== undefined) return readTokenFile(values["token-file"]);
  if (values.token !== undefined) {
    warn(`gatehouse: --token shows the token in this process's command line, where any process can read it; use ${kind.env} or --token-file FILE`);
    return values.token;
  }
  return env[kind.env] || undefined;
}

/** As tokenFrom, where a token is needed: none is an error that says every way to give one. */
export function requiredToken(values: TokenValues, kind: TokenKind, warn?: (line: string) => void, env: NodeJS.ProcessEnv = process.env): string {
  const token = tokenFrom(values, kind, warn, env);
  if (token === undefined) throw new CliError(`missing token: set ${kind.env}, or give --token-file FILE`);
  return token;
}
