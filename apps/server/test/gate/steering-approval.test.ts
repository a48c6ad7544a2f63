import fs from "node:fs";
import path from "node:path";
import { DEFAULT_RULES_TEXT } from "@gatehouse/policy";
import type { GatehouseEvent } from "@gatehouse/protocol";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApprovalGate } from "../../src/gate/approval-gate.js";
import { present } from "../../src/gate/presentation.js";
import { gateFixture, scriptedRunner } from "../in-process.js";

let f: ReturnType<typeof gateFixture>;
beforeAll(() => ApprovalGate.ready());
afterEach(() => f.close());

const PACKAGE = '{\n  "name": "app",\n  "dependencies": {\n    "left-pad": "1.0.0"\n  }\n}\n';

const runnerFor = (steps: unknown[]) => scriptedRunner(f, steps);

const asks = async () =>
  (await f.store.eventsAfter(0))
    .map((e) => e.event)
    .filter((e): e is Extract<GatehouseEvent, { type: "tool_approval_required" }> => e.type === "tool_approval_required");

const bump = (from: string, to: string) => ({
  tool: "edit_file",
  args: { path: "package.json", old_string: `"left-pad": "${from}"`, new_string: `"left-pad": "${to}"` },
});

describe("a change to package.json under the default rules", () => {
  it("asks once, in accept-edits too, with the diff and the programs it steers; always saves the path", async () => {
    f = gateFixture(DEFAULT_RULES_TEXT, {
      present: (session, call) =>
        present({ workDir: () => f.workDir, currentText: async (_s, p) => fs.readFileSync(path.join(f.workDir, p), "utf8") }, session, call),
    });
    fs.writeFileSync(path.join(f.workDir, "package.json"), PACKAGE);
    const ran: string[] = [];
    f.serveWorker((m) => (ran.push(`${m.toolName} ${String(m.args.path)}`), { ok: true, output: "edited" }));
    const runner = runnerFor([
      { text: "bump", toolCalls: [bump("1.0.0", "1.3.0")] },
      { text: "again", toolCalls: [bump("1.3.0", "2.0.0"), { tool: "write_file", args: { path: "src/app.ts", content: "x" } }] },
      { text: "done" },
    ]);
    const s = f.session("s1", "accept-edits");
    const turn = runner.runTurn(s, "start", new AbortController());
    for (let i = 0; i < 100 && (await asks()).length === 0; i++) await new Promise((r) => setTimeout(r, 10));

    const [ask] = await asks();
    expect(ask).toBeDefined();
    expect(ask!.tier).toBe("exec");
    expect(ask!.reason).toMatch(/package\.json decides what `npm`, `pnpm`, `yarn`, `bun`, `npx`, `node` run/);
    expect(ask!.presentation?.kind).toBe("diff");
    expect(ask!.presentation?.content).toContain('-    "left-pad": "1.0.0"');
    expect(ask!.presentation?.content).toContain('+    "left-pad": "1.3.0"');
    expect(ask!.suggestedPatterns).toEqual(["package.json"]);

    await f.gate.approve("ada", { sessionId: s.id, approvalId: ask!.approvalId, always: true });
    expect(await turn).toBe("completed");
    expect(await asks()).toHaveLength(1);
    expect(ran).toEqual(["edit_file package.json", "edit_file package.json", "write_file src/app.ts"]);
    expect(fs.readFileSync(f.rulesFile, "utf8")).toMatch(/"package\.json": "allow"/);
  });
});
