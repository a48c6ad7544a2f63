// What the end-to-end benchmarks share: percentiles, event streams and waiting on a condition.
import fs from "node:fs";
import type { GatehouseClient, GatehouseEvent } from "@gatehouse/protocol";

/** The value at fraction `p` of `xs` (not sorted in place). */
export const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** Subscribes to the events of one session, or of all when `sessionId` is absent. */
export function collect(client: GatehouseClient, input: { sessionId?: string }, onEvent: (e: GatehouseEvent) => void): { unsubscribe(): void } {
  return client.agent.onEvents.subscribe(input, { onData: (d) => onEvent(d.data as GatehouseEvent) });
}

/** Polls `check` every 2 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** CPU time (user + system) a process has used, in ms: a figure that load from other processes does not inflate as much as wall time. */
export const cpuMs = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms (USER_HZ on Linux)
};

export const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
