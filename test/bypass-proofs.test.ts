// Real bash proves that the bypass cases with a proof really run what they hide (the gate's
// answers to the same cases are checked in bypass-classes.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Case } from "./corpus/bypass/case.js";
import { GROUPS } from "./corpus/bypass/groups.js";
import { Scratch, type ProofResult } from "./support/shell-corpus.js";

const scratch = new Scratch();
const proven: { c: Case; result: ProofResult }[] = [];

describe("real bash confirms that the bypass cases run what they hide", () => {
  beforeAll(async () => {
    const all = GROUPS.flatMap(([, cases]) => cases).filter((c) => c.proof);
    const results = await scratch.proveAll(all.map((c) => ({ cmd: c.cmd, proof: c.proof! })));
    all.forEach((c, i) => proven.push({ c, result: results[i]! }));
  }, 300_000);
  afterAll(() => scratch.dispose(), 60_000);

  it("runs every proof; each one that can run does what the case says", () => {
    const skipped = proven.filter((p) => p.result.skipped);
    const failed = proven.filter((p) => !p.result.ok).map((p) => `${JSON.stringify(p.c.cmd)}: ${p.result.detail}`);
    console.log(
      `real bash: ${proven.length - skipped.length} proofs ran, ${skipped.length} skipped ` +
        `(missing ${[...new Set(skipped.map((p) => p.result.skipped))].join("; ")})`,
    );
    expect(failed).toEqual([]);
    expect(proven.length - skipped.length).toBeGreaterThan(100);
  });
});
