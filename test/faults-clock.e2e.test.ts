import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, waitUntil } from "./support/cluster.js";

/**
 * The server's wall clock stepped under real processes (as NTP or a VM resumed steps it): that
 * may not count a live worker gone, fail its calls or cancel the approvals of its sessions.
 */
let cluster: Cluster | undefined;
afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.log(cluster?.serverLog.slice(-20).join("\n"));
  await cluster?.stop();
  cluster = undefined;
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

/**
 * Loaded into the server with --import: each SIGUSR2 steps `Date.now()` by the next of
 * GATEHOUSE_TEST_CLOCK_STEPS (milliseconds). The machine's own clock is shared with every
 * other process, so the step is made in the server alone.
 */
const CLOCK_STEPPER = `
const steps = (process.env.GATEHOUSE_TEST_CLOCK_STEPS ?? "").split(",").map(Number);
let offset = 0;
const wall = Date.now;
Date.now = () => wall() + offset;
process.on("SIGUSR2", () => { offset += steps.shift() ?? 0; });
`;

function stepper(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gh-clock-")), "clock-stepper.mjs");
  fs.writeFileSync(file, CLOCK_STEPPER);
  return file;
}

describe("the server's clocks", { timeout: 60_000 }, () => {
  it("a step of the wall clock, forward or back, counts no worker gone: the running call ends well, a pending approval stays, a silent worker is still found", async () => {
    cluster = await Cluster.start({
      rules: `{ "*": "allow", "shell_exec": { "touch *": "ask" } }`,
      env: { NODE_OPTIONS: `--import ${stepper()}`, GATEHOUSE_TEST_CLOCK_STEPS: "60000,-120000" },
    });
    const c = cluster;
    const client = c.client();
    const held = await c.promptedSession(client, [{ text: "Asking.", toolCalls: [shell("touch approved.txt")] }, { text: "Done." }]);
    const ask = await held.events.next("tool_approval_required");
    const running = await c.promptedSession(client, [{ text: "Working.", toolCalls: [shell("sleep 3; echo finished")] }, { text: "Done." }]);
    await running.events.next("tool_call_started");

    c.server.kill("SIGUSR2"); // a minute forward
    const result = await running.events.next("tool_result", () => true, 15_000);
    expect([result.outcome, result.output]).toEqual(["ok", expect.stringContaining("finished")]);
    expect(held.events.of("tool_approval_resolved")).toEqual([]);
    expect(await client.tool.approve.mutate({ sessionId: held.id, approvalId: ask.approvalId })).toEqual({ applied: true });
    await held.events.next("turn_ended", () => true, 10_000);
    expect(fs.existsSync(path.join(c.workDir, "approved.txt"))).toBe(true);

    c.server.kill("SIGUSR2"); // two minutes back
    await new Promise((r) => setTimeout(r, 500));
    c.worker!.kill("SIGSTOP");
    const stopped = Date.now();
    // Timed by the wall clock, a worker silent since a minute "ahead" would be counted gone only a minute later.
    await waitUntil(async () => !(await client.workers.list.query()).some((w) => w.connected), 10_000, "the silent worker to be counted gone");
    expect(Date.now() - stopped).toBeLessThan(8000);
    c.worker!.kill("SIGCONT");
  });
});
