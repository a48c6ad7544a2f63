import fs from "node:fs";
import path from "node:path";
import { MAX_MCP_SERVERS } from "@gatehouse/protocol";
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import { McpConfigError } from "../errors.js";

/** A server whose tools run as a subprocess of the worker, spoken to over its stdin and stdout. */
export interface StdioServerConfig {
  name: string;
  kind: "stdio";
  command: string;
  args: string[];
  /** Added to the small safe environment the server starts with; `${VAR}` taken from the worker's. */
  env: Record<string, string>;
  /** Absolute; the worker's work directory unless configured. */
  cwd: string;
}

/** A server reached over Streamable HTTP. */
export interface HttpServerConfig {
  name: string;
  kind: "http";
  url: URL;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/**
 * Server names hold no `_`: the first `_` of a qualified tool name `{server}_{tool}` then always
 * separates the server from its tool, so two servers can never offer the same name.
 */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/;

const STDIO_KEYS = new Set(["command", "args", "env", "cwd"]);
const HTTP_KEYS = new Set(["url", "headers"]);

interface Reader {
  fail(at: (string | number)[], detail: string): never;
  value(at: (string | number)[]): unknown;
}

function reader(file: string, text: string, root: Node): Reader {
  const position = (offset: number) => {
    const before = text.slice(0, offset).split("\n");
    return { line: before.length, column: before.at(-1)!.length + 1 };
  };
  return {
    fail(at, detail) {
      let node: Node | undefined;
      for (let n = at.length; !node && n >= 0; n--) node = findNodeAtLocation(root, at.slice(0, n));
      const { line, column } = position(node?.offset ?? 0);
      throw new McpConfigError(file, line, column, at.join("."), detail);
    },
    value(at) {
      const node = findNodeAtLocation(root, at);
      return node ? nodeValue(node) : undefined;
    },
  };
}

function nodeValue(node: Node): unknown {
  if (node.type === "object") return Object.fromEntries((node.children ?? []).map((p) => [p.children![0]!.value, nodeValue(p.children![1]!)]));
  if (node.type === "array") return (node.children ?? []).map(nodeValue);
  return node.value;
}

/** Gatehouse's own tokens: never handed on to an MCP server. */
const GATEHOUSE_TOKENS = new Set(["GATEHOUSE_WORKER_TOKEN", "GATEHOUSE_CLIENT_TOKEN"]);

/** `${VAR}` from the worker's environment; a variable that is not set is an error, never "". */
function expand(r: Reader, at: (string | number)[], text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    if (GATEHOUSE_TOKENS.has(name)) r.fail(at, `\${${name}} is a Gatehouse token, which is never given to an MCP server`);
    const value = env[name];
    if (value === undefined) r.fail(at, `\${${name}} is not set in the worker's environment`);
    return value;
  });
}

function stringMap(r: Reader, at: (string | number)[], env: NodeJS.ProcessEnv): Record<string, string> {
  const v = r.value(at);
  if (v === undefined) return {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) r.fail(at, "must be an object of name to string");
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string") r.fail([...at, k], "must be a string");
    out[k] = expand(r, [...at, k], x, env);
  }
  return out;
}

function stdioServer(r: Reader, name: string, keys: string[], workDir: string, env: NodeJS.ProcessEnv): StdioServerConfig {
  const at = ["mcpServers", name];
  for (const k of keys) if (!STDIO_KEYS.has(k)) r.fail([...at, k], `unknown field for a stdio server (use ${[...STDIO_KEYS].join(", ")})`);
  const command = r.value([...at, "command"]);
  if (typeof command !== "string" || command.trim() === "") r.fail([...at, "command"], "must be a non-empty string");
  const args = r.value([...at, "args"]) ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) r.fail([...at, "args"], "must be an array of strings");
  const cwd = r.value([...at, "cwd"]) ?? ".";
  if (typeof cwd !== "string") r.fail([...at, "cwd"], "must be a string");
  return { name, kind: "stdio", command, args: args as string[], env: stringMap(r, [...at, "env"], env), cwd: path.resolve(workDir, cwd) };
}

function httpServer(r: Reader, name: string, keys: string[], env: NodeJS.ProcessEnv): HttpServerConfig {
  const at = ["mcpServers", name];
  for (const k of keys) if (!HTTP_KEYS.has(k)) r.fail([...at, k], `unknown field for an HTTP server (use ${[...HTTP_KEYS].join(", ")})`);
  const raw = r.value([...at, "url"]);
  if (typeof raw !== "string") r.fail([...at, "url"], "must be a string");
  let url: URL;
  try {
    url = new URL(expand(r, [...at, "url"], raw, env));
  } catch {
    r.fail([...at, "url"], `${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") r.fail([...at, "url"], "must be an http:// or https:// URL");
  return { name, kind: "http", url, headers: stringMap(r, [...at, "headers"], env) };
}

/** Parses the MCP configuration text: `{ "mcpServers": { name: { command, ... } | { url, ... } } }`. */
export function parseMcpConfig(text: string, file: string, workDir: string, env: NodeJS.ProcessEnv = process.env): McpServerConfig[] {
  const syntax: ParseError[] = [];
  const root = parseTree(text, syntax, { allowTrailingComma: true, disallowComments: false });
  const top: Reader = reader(file, text, root ?? { type: "null", offset: 0, length: 0 });
  if (syntax.length > 0) {
    const e = syntax[0]!;
    const before = text.slice(0, e.offset).split("\n");
    throw new McpConfigError(file, before.length, before.at(-1)!.length + 1, "", `syntax error: ${printParseErrorCode(e.error)}`);
  }
  if (root?.type !== "object") top.fail([], "the configuration must be a JSON object");
  for (const key of Object.keys(nodeValue(root) as object)) if (key !== "mcpServers") top.fail([key], `unknown field (the file holds "mcpServers")`);
  const servers = top.value(["mcpServers"]) ?? {};
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) top.fail(["mcpServers"], "must be an object of server name to server");
  if (Object.keys(servers).length > MAX_MCP_SERVERS) top.fail(["mcpServers"], `at most ${MAX_MCP_SERVERS} servers`);
  return Object.entries(servers).map(([name, server]) => {
    const at = ["mcpServers", name];
    if (!SERVER_NAME.test(name))
      top.fail(
        at,
        `server name ${JSON.stringify(name)} may hold letters, digits and '-' only (at most 32): the first '_' of a tool name separates server from tool`,
      );
    if (typeof server !== "object" || server === null || Array.isArray(server))
      top.fail(at, "must be an object with a command (stdio) or a url (Streamable HTTP)");
    const keys = Object.keys(server);
    if (keys.includes("command") === keys.includes("url")) top.fail(at, "give either a command (stdio) or a url (Streamable HTTP)");
    return keys.includes("command") ? stdioServer(top, name, keys, workDir, env) : httpServer(top, name, keys, env);
  });
}

export function loadMcpConfig(file: string, workDir: string, env: NodeJS.ProcessEnv = process.env): McpServerConfig[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new McpConfigError(file, 1, 1, "", `cannot be read: ${(err as Error).message}`);
  }
  return parseMcpConfig(text, file, workDir, env);
}
