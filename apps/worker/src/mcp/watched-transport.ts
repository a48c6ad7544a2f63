import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { getDefaultEnvironment, type StdioServerParameters } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { McpTransportError } from "../errors.js";
import { killGroup } from "../process-group.js";
import { spawnWatched } from "../sandbox/group-watchdog.js";

/** How long a server may take to exit once its input has ended, before its whole group is killed. */
const EXIT_GRACE_MS = 2000;

/**
 * A stdio MCP server's transport, as the SDK's own, but with the server started in a process group
 * of its own behind the worker's watchdog: the group, its sandbox and network relay included, is
 * killed when the worker dies (even by kill -9, even while bubblewrap is still starting) and when
 * the connection closes.
 */
export class WatchedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr, there before it starts so that no early line is lost. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly params: StdioServerParameters) {}

  start(): Promise<void> {
    if (this.child) return Promise.reject(new McpTransportError("ALREADY_STARTED", "the MCP server's transport is already started"));
    const { command, args = [], cwd } = this.params;
    const env = { ...getDefaultEnvironment(), ...this.params.env };
    // The watchdog's shell would start even when the program is missing: say so as spawn would.
    if (!runnable(command, cwd ?? ".", env.PATH)) return Promise.reject(new McpTransportError("PROGRAM_NOT_FOUND", `spawn ${command} ENOENT`));
    const child = spawnWatched([command, ...args], { env, ...(cwd ? { cwd } : {}), stdio: ["pipe", "pipe", "pipe"] });
    this.child = child;
    child.stderr!.pipe(this.stderr);
    child.stdin!.on("error", (err) => this.onerror?.(err));
    child.stdout!.on("error", (err) => this.onerror?.(err));
    child.stdout!.on("data", (chunk: Buffer) => this.received(chunk));
    // Its exit drops the watchdog's pipe, which kills what is left of its group.
    child.once("close", () => {
      this.child = undefined;
      this.onclose?.();
    });
    return new Promise((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (err) => {
        reject(err);
        this.onerror?.(err);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new McpTransportError("NOT_RUNNING", "the MCP server is not running"));
    return new Promise((resolve) => (stdin.write(serializeMessage(message)) ? resolve() : stdin.once("drain", resolve)));
  }

  /** Ends the server's input, waits a little for it to exit, then kills its whole group. */
  async close(): Promise<void> {
    const child = this.child;
    this.buffer.clear();
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    child.stdin!.end();
    await Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, EXIT_GRACE_MS).unref())]);
    if (child.exitCode === null && child.signalCode === null) killGroup(child.pid);
  }

  private received(chunk: Buffer): void {
    this.buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (err) {
        this.onerror?.(err as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }
}

/** Whether `command` names an executable file, itself (from `cwd`) or on `pathVariable`. */
function runnable(command: string, cwd: string, pathVariable = ""): boolean {
  const candidates = command.includes("/") ? [path.resolve(cwd, command)] : pathVariable.split(":").map((dir) => path.join(dir || ".", command));
  return candidates.some((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
}
