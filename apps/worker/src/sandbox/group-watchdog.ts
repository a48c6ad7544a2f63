import { spawn, type ChildProcess, type SpawnOptions, type StdioNull, type StdioPipe } from "node:child_process";

/** The descriptor on which the watchdog reads the worker's end of its pipe (3 and 5 are bubblewrap's options and filter). */
const WATCH_FD = 4;

/**
 * Runs PROGRAM in its process group with a watchdog ahead of it: a subshell that reads the
 * worker's end of a pipe (WATCH_FD) and kills the whole group when it ends, which is when the
 * worker lets the program go, exits, or dies (even by kill -9). The watchdog starts before the
 * program does, so nothing the program starts can outlive the worker. The program itself has
 * neither the pipe nor the watchdog's output.
 */
const WRAPPER = `(read -r _ <&${WATCH_FD}; kill -KILL 0) </dev/null >/dev/null 2>&1 &
exec "$@" ${WATCH_FD}<&-`;

type Stdio =
  | [StdioNull | StdioPipe, StdioPipe, StdioPipe]
  | [StdioNull | StdioPipe, StdioPipe, StdioPipe, StdioPipe]
  | [StdioNull | StdioPipe, StdioPipe, StdioPipe, StdioPipe, StdioPipe];

/**
 * Starts `program` so that it and its whole process group die with the worker and when the
 * program exits; `options` as for spawn, detached (a group and a session of its own, with no
 * terminal). A fourth and a fifth stdio entry, when given, reach the program as descriptors 3 and 5.
 */
export function spawnWatched(program: readonly string[], options: SpawnOptions & { stdio: Stdio }): ChildProcess {
  const [stdin, stdout, stderr, third = "ignore", fifth] = options.stdio;
  const child = spawn("/bin/sh", ["-c", WRAPPER, "gatehouse-watchdog", ...program], {
    ...options,
    detached: true,
    stdio: [stdin, stdout, stderr, third, "pipe", ...(fifth ? [fifth] : [])],
  });
  // The pipe is not waited on: it is dropped once the program has exited, which ends its group.
  child.once("exit", () => child.stdio[WATCH_FD]?.destroy());
  return child;
}
