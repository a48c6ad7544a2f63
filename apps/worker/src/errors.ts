import type { RealPathsAnswer } from "@gatehouse/protocol";

/** The worker's failures, each with a code a caller can switch on. */

/** A tool call the guard refused: its rules do not permit it, or it reaches a protected path or out of the work directory. */
export class ToolRefusedError extends Error {
  override readonly name = "ToolRefusedError";
  readonly code = "TOOL_REFUSED";
}

/** A file a tool opened is not where the call's decision took its path to lead: the call does not run, and `moved` says where its paths lead now. */
export class PathsMovedError extends Error {
  override readonly name = "PathsMovedError";
  readonly code = "PATHS_MOVED";
  constructor(readonly moved: RealPathsAnswer) {
    super("a path leads elsewhere than its decision assumed");
  }
}

/** The sandbox cannot be built for a command (too many entries to mask, a work directory it would hide). */
export class SandboxRefusedError extends Error {
  override readonly name = "SandboxRefusedError";
  readonly code = "SANDBOX_REFUSED";
}

/** The sandbox is required and does not work on this machine. */
export class SandboxUnavailableError extends Error {
  override readonly name = "SandboxUnavailableError";
  readonly code = "SANDBOX_UNAVAILABLE";
}

/** The work directory holds more entries than the sandbox can mask. */
export class TreeTooLargeError extends Error {
  override readonly name = "TreeTooLargeError";
  readonly code = "TREE_TOO_LARGE";
}

/** A configured agents folder that the agent could write: its definitions would widen what the agent may do. */
export class AgentsFolderRefusedError extends Error {
  override readonly name = "AgentsFolderRefusedError";
  readonly code = "AGENTS_FOLDER_REFUSED";
}

/** A Markdown file's front matter that does not parse, or is not a mapping of fields. */
export class FrontMatterError extends Error {
  override readonly name = "FrontMatterError";
  readonly code = "FRONT_MATTER";
}

/** Why a search pattern could not be run to the end. */
export class PatternRefusedError extends Error {
  override readonly name = "PatternRefusedError";
  constructor(
    readonly code: "TOO_SLOW" | "THREAD_FAILED",
    message: string,
  ) {
    super(message);
  }
}

/** A request to the egress proxy that is not one it speaks (too long, cut short, not HTTP or SOCKS5 as it offers). */
export class ProxyProtocolError extends Error {
  override readonly name = "ProxyProtocolError";
  readonly code = "PROXY_PROTOCOL";
}

/** A problem in the MCP configuration file, located so that an operator can go straight to it. */
export class McpConfigError extends Error {
  override readonly name = "McpConfigError";
  readonly code = "MCP_CONFIG";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${file}:${line}:${column}: ${field ? `${field}: ` : ""}${detail}`);
  }
}

/** A stdio MCP server's transport used out of turn, or its program not found (named as spawn names it, with ENOENT). */
export class McpTransportError extends Error {
  override readonly name = "McpTransportError";
  constructor(
    readonly code: "ALREADY_STARTED" | "NOT_RUNNING" | "PROGRAM_NOT_FOUND",
    message: string,
  ) {
    super(message);
  }
}

/** A file tool's write that could not be completed (a full disk, say); the file was left as it was. */
export class WriteIncompleteError extends Error {
  override readonly name = "WriteIncompleteError";
  readonly code = "WRITE_INCOMPLETE";
}
