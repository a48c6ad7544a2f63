import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

/**
 * Runs `bash -c COMMAND` in its process group with a watchdog ahead of it: a subshell that reads
 * the worker's end of a pipe (fd 3) and kills the whole group when it ends, which is when the
 * worker lets the command go, exits, or dies (even by kill -9). The watchdog starts before the
 * command does, so nothing the command starts can outlive the worker. The command itself has
 * neither the pipe nor the watchdog's output.
 */
const WRAPPER = `(read -r _ <&3; kill -KILL 0) </dev/null >/dev/null 2>&1 &
exec bash -c "$1" 3<&-`;

/** Starts a command outside the sandbox so that it dies with the worker; `options` as for spawn, detached (a group of its own). */
export function spawnWatched(command: string, options: SpawnOptions & { stdio: ["ignore", "pipe", "pipe"] }): ChildProcess {
  const child = spawn("sh", ["-c", WRAPPER, "bash", command], { ...options, detached: true, stdio: [...options.stdio, "pipe"] });
  // The pipe is not waited on: it is dropped once the command has exited, which ends its watchdog.
  child.once("exit", () => child.stdio[3]?.destroy());
  return child;
}
