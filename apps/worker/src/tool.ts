import type { ChildProcess } from "node:child_process";
import type { Tier } from "@gatehouse/policy";
import { cutText, type AssumedPaths, type Granted, type McpOrigin, type ToolOutput } from "@gatehouse/protocol";
import type { z } from "zod";
import type { FileGuard } from "./file-guard.js";
import type { SteeringLinkTargets } from "./steering-links.js";

/** A started shell command; `settled`, when there, resolves once the worker has tidied after it, with what it has to say about that. */
export type ShellChild = ChildProcess & { settled?: Promise<string[]> };

export interface ToolContext {
  workDir: string;
  guard: FileGuard;
  /** Why the server let the call run; an ask on a path passes the worker's own check only when it was not by the rules. */
  granted: Granted;
  /** Where the server's decision took the call's paths to lead: what the tool opens must be there. */
  assumed?: AssumedPaths | undefined;
  signal: AbortSignal;
  timeoutMs: number;
  /** Starts a bash command the way this worker runs them (sandboxed, safe environment); rejects when refused. */
  spawnShell(command: string): Promise<ShellChild>;
  /** The work tree's symlinks standing where files of the catalogue are named, and where they lead now: a write tool's check needs them. */
  steeringLinks(): Promise<SteeringLinkTargets>;
  /** Where output goes as it comes, when the server asked for it; the result still carries the whole. */
  onOutput?: ((text: string) => void) | undefined;
}

/** A tool the worker runs: its input schema, tier, and what it does. */
export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  tier: Tier;
  input: S;
  /** The JSON Schema offered to the model when it is not derived from `input` (an MCP tool's own). */
  inputSchema?: Record<string, unknown>;
  mcp?: McpOrigin;
  /**
   * The tool checks every path its call's decision assumed on what it opens, before it has any
   * effect (checked-open.ts): the worker need not resolve those paths again before it runs.
   */
  opensChecked?: true;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

export type ToolResult = ToolOutput;

export const OUTPUT_LIMIT = 100_000;

/** Output over the limit is cut, with a marker saying how much was left out. */
export function limitOutput(text: string, limit = OUTPUT_LIMIT): string {
  return cutOutput(text, limit).text;
}

function cutOutput(text: string, limit: number): { text: string; truncated: boolean } {
  return cutText(text, limit, (total) => `\n… [output cut: ${total - limit} more characters]`);
}

/** A result whose output is cut to the limit; `truncated` says when it was. */
export function limitedResult(ok: boolean, text: string): ToolResult {
  const cut = cutOutput(text, OUTPUT_LIMIT);
  return cut.truncated ? { ok, output: cut.text, truncated: true } : { ok, output: text };
}

export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  return tool;
}
