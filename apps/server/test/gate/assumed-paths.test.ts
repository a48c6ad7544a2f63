import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApprovalGate } from "../../src/gate/approval-gate.js";
import { RunTimeDecisions, type Raised } from "../../src/gate/run-time-decision.js";
import type { Resolved } from "../../src/gate/worker-real-paths.js";
import { gateFixture } from "../in-process.js";

let f: ReturnType<typeof gateFixture>;
beforeAll(() => ApprovalGate.ready());
afterEach(() => f.close());

/** Run-time decisions whose worker answers from `links` (every other path leads to itself), counting its requests. */
function runTime(links: Record<string, string> = {}) {
  const asked: string[][] = [];
  const decisions = new RunTimeDecisions({
    evaluate: (session, call, resolve) => f.gate.evaluate(session, call, resolve),
    presentation: () => Promise.resolve(null),
    inputs: (session, call) => f.gate.inputs(session, call),
    realPaths: (_session, paths) => {
      asked.push([...paths]);
      return Promise.resolve(new Map(paths.map((p) => [p, { real: links[p] ?? p }])));
    },
  });
  return { decisions, asked };
}

const allowed: Raised = { action: "allow", approved: null };
const reported = (entries: Record<string, Resolved>) => new Map(Object.entries(entries));

describe("a call decided just before it runs on the paths it assumes", () => {
  it("lets an allowed call run without asking the worker, carrying each path as leading to itself", async () => {
    f = gateFixture(`{ "*": "ask", "read_file": "allow" }`);
    const { decisions, asked } = runTime();
    const notes = path.join(f.workDir, "notes.txt");
    const verdict = await decisions.beforeRun(f.session(), { tool: "read_file", args: { path: "notes.txt" } }, allowed, null);
    expect(verdict).toEqual({ stricter: null, assumed: { [notes]: { real: notes } } });
    expect(asked).toEqual([]);
  });

  it("decides again on where the worker said the paths lead, and asks with the reason, on the worker's own answer", async () => {
    f = gateFixture(`{ "*": "ask", "edit_file": "allow" }`);
    const settings = path.join(f.workDir, "settings.ini");
    const config = path.join(f.workDir, ".git/config");
    const { decisions, asked } = runTime({ [settings]: config });
    const call = { tool: "edit_file", args: { path: "settings.ini", old_string: "a", new_string: "b" } };
    const verdict = await decisions.beforeRun(f.session(), call, allowed, reported({ [settings]: { real: config } }));
    expect(verdict.stricter).toMatchObject({
      action: "ask",
      reason: expect.stringMatching(/^decided again just before it ran: settings\.ini resolves to .*\.git\/config: /),
    });
    expect(asked).toEqual([[settings]]);
  });

  it("carries a moved path where the worker said it leads when the call may still run", async () => {
    f = gateFixture(`{ "*": "ask", "read_file": "allow" }`);
    const notes = path.join(f.workDir, "notes.txt");
    const other = path.join(f.workDir, "other.txt");
    const { decisions, asked } = runTime();
    const verdict = await decisions.beforeRun(f.session(), { tool: "read_file", args: { path: "notes.txt" } }, allowed, reported({ [notes]: { real: other } }));
    expect(verdict.stricter).toBeNull();
    expect(verdict.assumed).toMatchObject({ [notes]: { real: other } });
    expect(asked).toEqual([]);
  });

  it("decides a call a person approved on the worker's answer, and carries that answer", async () => {
    f = gateFixture(`{ "*": "ask" }`);
    const notes = path.join(f.workDir, "notes.txt");
    const { decisions, asked } = runTime();
    const approved: Raised = { action: "ask", approved: { shown: null, leads: new Map([[notes, notes]]) } };
    const verdict = await decisions.beforeRun(f.session(), { tool: "read_file", args: { path: "notes.txt" } }, approved, null);
    expect(verdict).toEqual({ stricter: null, assumed: { [notes]: { real: notes } } });
    expect(asked).toEqual([[notes]]);
  });

  it("carries nothing for a shell command, decided on the rules alone", async () => {
    f = gateFixture(`{ "*": "ask", "shell_exec": "allow" }`);
    const { decisions, asked } = runTime();
    expect(await decisions.beforeRun(f.session(), { tool: "shell_exec", args: { command: "ls" } }, allowed, null)).toEqual({ stricter: null, assumed: null });
    expect(asked).toEqual([]);
  });

  it("takes the decision the batch was prepared with while what it depends on is the same, with the paths it assumed", async () => {
    f = gateFixture(`{ "*": "ask", "read_file": "allow" }`);
    const notes = path.join(f.workDir, "notes.txt");
    const { decisions, asked } = runTime();
    const call = { tool: "read_file", args: { path: "notes.txt" } };
    const early = decisions.early(f.session(), call);
    expect(early.decision).toEqual(f.gate.evaluate(f.session(), call));
    expect(await decisions.beforeRun(f.session(), call, { ...allowed, early }, null)).toEqual({ stricter: null, assumed: { [notes]: { real: notes } } });
    expect(asked).toEqual([]);
  });

  it("decides again when the rules changed since the batch was prepared", async () => {
    f = gateFixture(`{ "*": "ask", "read_file": "allow" }`);
    const { decisions } = runTime();
    const call = { tool: "read_file", args: { path: "notes.txt" } };
    const early = decisions.early(f.session(), call);
    fs.writeFileSync(f.rulesFile, `{ "*": "ask", "read_file": { "*": "allow", "notes.txt": "deny" } }`);
    // A call about to run sees an edit once the server's watch has: the event loop reads the watch's news at its next poll.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    const verdict = await decisions.beforeRun(f.session(), call, { ...allowed, early }, null);
    expect(verdict.stricter).toMatchObject({ action: "deny", reason: expect.stringMatching(/^decided again just before it ran/) });
  });

  it("decides again when the session's mode changed since the batch was prepared", async () => {
    f = gateFixture(`{ "*": "ask", "write_file": "ask" }`);
    const { decisions } = runTime();
    const call = { tool: "write_file", args: { path: "notes.txt", content: "x" } };
    const early = decisions.early(f.session("s1", "accept-edits"), call);
    expect(early.decision.action).toBe("allow");
    const verdict = await decisions.beforeRun(f.session("s1", "default"), call, { ...allowed, early }, null);
    expect(verdict.stricter).toMatchObject({ action: "ask" });
  });

  it("decides again on the worker's answer once a path moved, whatever the batch was prepared with", async () => {
    f = gateFixture(`{ "*": "ask", "edit_file": "allow" }`);
    const settings = path.join(f.workDir, "settings.ini");
    const config = path.join(f.workDir, ".git/config");
    const { decisions } = runTime({ [settings]: config });
    const call = { tool: "edit_file", args: { path: "settings.ini", old_string: "a", new_string: "b" } };
    const early = decisions.early(f.session(), call);
    const verdict = await decisions.beforeRun(f.session(), call, { ...allowed, early }, reported({ [settings]: { real: config } }));
    expect(verdict.stricter).toMatchObject({ action: "ask" });
  });
});
