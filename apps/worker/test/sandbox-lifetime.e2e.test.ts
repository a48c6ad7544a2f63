import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { callProcesses } from "../../../test/support/process.js";
import { waitUntil } from "../../../test/support/wait.js";

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-lifetime-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/**
 * A worker of its own: a process holding a ShellRunner with the network through the proxy, so
 * that the relay starts in the sandbox. It starts `sleep MARKER` and kills itself with SIGKILL
 * DELAY ms after bubblewrap was started.
 */
const WORKER = `
  const [index, work, relay, marker, delay] = process.argv.slice(1);
  const { FileGuard, ShellRunner, resolveSandbox } = await import(index);
  const guard = new FileGuard({ agent: null, static: [{ tool: "*", pattern: "*", action: "allow", origin: "person" }], runtime: [], protectedPaths: [] }, work);
  const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: true }), { watch: false, egress: { relay: relay === "node" ? { kind: "node" } : { kind: "socat", program: "socat" } } });
  await runner.profile(guard);
  await runner.start("sleep " + marker, guard);
  setTimeout(() => process.kill(process.pid, "SIGKILL"), Number(delay));`;

function workerDying(relay: string, marker: string, delay: number): Promise<void> {
  const index = path.resolve(import.meta.dirname, "../dist/index.js");
  const child = spawn(process.execPath, ["--input-type=module", "-e", WORKER, index, root, relay, marker, String(delay)], { stdio: "ignore" });
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

describe.each(["socat", "node"])("a worker killed with SIGKILL as a sandbox starts (relay: %s)", (relay) => {
  it("leaves no bubblewrap, relay or command behind, whatever the moment", { timeout: 60_000 }, async () => {
    const marker = `31.${process.pid}${relay.length}`;
    // From before bubblewrap has read its options to after the command runs: the old code left processes at most of these moments.
    for (const delay of [0, 2, 5, 10, 20, 40]) await workerDying(relay, `${marker}${delay}`, delay);
    await waitUntil(() => callProcesses(`sleep ${marker}`).length === 0, 5000, "every sandbox, relay and command to be gone").catch((err: Error) => {
      throw new Error(`${err.message}: ${callProcesses(`sleep ${marker}`).join("; ")}`);
    });
    expect(callProcesses(`sleep ${marker}`)).toEqual([]);
  });
});
