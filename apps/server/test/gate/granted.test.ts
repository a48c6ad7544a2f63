import type { Decision } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { grantedBy } from "../../src/gate/granted.js";

const decided = (fields: Partial<Decision>) => ({ ruleAction: "ask", critical: null, mode: "default", ...fields }) as Decision;

describe("why a call may run, as the worker is told", () => {
  it("names the rules, accept-edits, another mode, or a person", () => {
    expect(grantedBy(decided({ ruleAction: "allow" }))).toBe("rules");
    expect(grantedBy(decided({ mode: "accept-edits" }))).toBe("edits");
    expect(grantedBy(decided({ mode: "yolo" }))).toBe("mode");
    expect(grantedBy(decided({ ruleAction: "allow", critical: "rm -rf /", mode: "yolo" }))).toBe("mode");
    expect(grantedBy(null)).toBe("person");
  });
});
