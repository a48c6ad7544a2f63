import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { uncovered } from "../../src/gate/approval-coverage.js";
import { ApprovalGate } from "../../src/gate/approval-gate.js";
import { decideOnRealPaths } from "../../src/gate/real-path-decision.js";
import { RunTimeDecisions, type Raised } from "../../src/gate/run-time-decision.js";
import { RealPathsUnknownError, type Resolved } from "../../src/gate/worker-real-paths.js";
import { gateFixture } from "../in-process.js";

let f: ReturnType<typeof gateFixture>;
beforeAll(() => ApprovalGate.ready());
afterEach(() => f.close());

/** A worker's links, as a map from a path to where it leads; every other path leads to itself. */
function worker(links: Record<string, string>) {
  const asked: string[][] = [];
  const lookup = async (paths: readonly string[]): Promise<ReadonlyMap<string, Resolved>> => {
    asked.push([...paths]);
    return new Map(paths.map((p) => [p, { real: links[p] ?? p }]));
  };
  return { asked, lookup };
}

const allowedAfterAShell: Raised = { action: "allow", approved: null };

describe("deciding a call on the worker's real paths", () => {
  it("judges a path where its link leads, and says so", async () => {
    f = gateFixture(`{ "*": "ask", "edit_file": "allow" }`);
    const w = worker({ [path.join(f.workDir, "settings.ini")]: path.join(f.workDir, ".git/config") });
    const call = { tool: "edit_file", args: { path: "settings.ini", old_string: "a", new_string: "b" } };
    const { decision, leads } = await decideOnRealPaths((resolve) => f.gate.evaluate(f.session(), call, resolve), w.lookup);
    expect(decision.action).toBe("ask");
    expect(decision.reason).toMatch(/settings\.ini resolves to .*\.git\/config: /);
    expect(leads.get(path.join(f.workDir, "settings.ini"))).toBe(path.join(f.workDir, ".git/config"));
    expect(w.asked).toHaveLength(1);
  });

  it("follows a link before `..` as the kernel does, one more request per link level", async () => {
    f = gateFixture(`{ "*": "ask", "read_file": { "*": "allow", "/secrets/**": "deny" } }`);
    const w = worker({ [path.join(f.workDir, "docs")]: "/secrets/inner" });
    const call = { tool: "read_file", args: { path: "docs/../key.txt" } };
    const { decision } = await decideOnRealPaths((resolve) => f.gate.evaluate(f.session(), call, resolve), w.lookup);
    expect(decision.action).toBe("deny");
    expect(decision.reason).toMatch(/leads to \/secrets\/key\.txt/);
    expect(w.asked.length).toBeGreaterThanOrEqual(2);
  });
});

describe("a call decided again just before it runs", () => {
  const runTimeOn = (lookup: (paths: readonly string[]) => Promise<ReadonlyMap<string, Resolved>>) =>
    new RunTimeDecisions({
      evaluate: (session, call, resolve) => f.gate.evaluate(session, call, resolve),
      presentation: () => Promise.resolve(null),
      inputs: (session, call) => f.gate.inputs(session, call),
      realPaths: (_session, paths) => lookup(paths),
    });

  it("decides the first call of a batch on the worker's real paths too: a link made before the batch is judged where it leads", async () => {
    f = gateFixture(`{ "*": "ask", "read_file": { "*": "allow", "private/**": "ask" } }`);
    const w = worker({ [path.join(f.workDir, "notes.txt")]: path.join(f.workDir, "private/key.txt") });
    const first: Raised = { action: "allow", approved: null };
    const decision = await runTimeOn(w.lookup).check(f.session(), { tool: "read_file", args: { path: "notes.txt" } }, first);
    expect(decision).toMatchObject({
      action: "ask",
      reason: expect.stringMatching(/^decided again just before it ran: notes\.txt resolves to .*private\/key\.txt/),
    });
    expect(w.asked).toHaveLength(1);
  });

  it("asks when the worker cannot say where the paths lead", async () => {
    f = gateFixture(`{ "*": "ask", "read_file": "allow" }`);
    const runTime = runTimeOn(() => Promise.reject(new RealPathsUnknownError("worker w1 is offline")));
    const decision = await runTime.check(f.session(), { tool: "read_file", args: { path: "a.txt" } }, allowedAfterAShell);
    expect(decision).toMatchObject({ action: "ask", reason: expect.stringMatching(/worker w1 is offline.*where its paths lead is not known/) });
  });

  it("denies when the rules deny by the time it runs", async () => {
    f = gateFixture(`{ "*": "ask", "read_file": { "*": "allow", "notes.txt": "deny" } }`);
    const runTime = runTimeOn(worker({}).lookup);
    const decision = await runTime.check(f.session(), { tool: "read_file", args: { path: "notes.txt" } }, allowedAfterAShell);
    expect(decision).toMatchObject({ action: "deny", reason: expect.stringMatching(/^decided again just before it ran: /) });
  });
});

describe("what an approval covers", () => {
  const shown = { kind: "diff" as const, content: "-a\n+b", truncated: false, fullSize: 5 };
  it("holds while the presentation and the paths are the same", () => {
    const leads = new Map([["/w/x", "/w/x"]]);
    expect(uncovered("edit_file", { shown, leads }, { shown: { ...shown }, leads: new Map(leads) })).toBeNull();
  });
  it("asks again, naming what changed: where a path leads, or what would be done", () => {
    expect(uncovered("edit_file", { shown, leads: new Map([["/w/x", "/w/x"]]) }, { shown, leads: new Map([["/w/x", "/w/y"]]) })).toMatch(
      /\/w\/x led to \/w\/x when the call was approved and leads to \/w\/y now/,
    );
    expect(uncovered("edit_file", { shown, leads: null }, { shown: { ...shown, content: "-a\n+c" }, leads: null })).toMatch(
      /something other than what was shown/,
    );
  });
});
