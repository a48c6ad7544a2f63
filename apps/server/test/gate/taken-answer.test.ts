import type { BatchContext } from "@gatehouse/protocol";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApprovalGate } from "../../src/gate/approval-gate.js";
import { gateFixture } from "../in-process.js";

const batch: BatchContext = { index: 0, total: 1, remaining: [] };
const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
let f: ReturnType<typeof gateFixture>;

beforeAll(() => ApprovalGate.ready());
afterEach(() => f.close());

/**
 * An approval taken by an answer, and a store that fails the write after it (the answer itself
 * was stored). Which write a full disk or a database outage hits first cannot be chosen with a
 * real fault, so the store here fails that one write as SQLite does on a full disk.
 */
describe("an answer taken when a later write fails", () => {
  it("lets the held call go as answered, and writes its session rule once the store takes it", async () => {
    f = gateFixture(`{ "*": "ask" }`);
    const s = f.session();
    const call = shell("make test");
    const { approvalId, settled } = await f.gate.raise(s, "c1", call, f.gate.evaluate(s, call), batch, null);
    const write = f.store.addRuntimeRules.bind(f.store);
    let failures = 2;
    f.store.addRuntimeRules = async (...args) => {
      if (failures-- > 0) throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
      return write(...args);
    };
    expect(await f.gate.approve("ada", { sessionId: s.id, approvalId, scope: "session" })).toBe(true);
    expect(await settled).toMatchObject({ outcome: "approved", scope: "session", by: "ada" });
    expect((await f.store.runtimeRules(s.id)).map((r) => [r.tool, r.pattern])).toEqual([["shell_exec", "make *"]]);
    expect(f.gate.evaluate(s, call).action).toBe("allow");
  });
});
