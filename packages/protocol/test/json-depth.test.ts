import { describe, expect, it } from "vitest";
import { z } from "zod";
import { boundedDepth, nestsDeeperThan, textNestsDeeperThan } from "../src/index.js";

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

describe("JSON depth", () => {
  it("counts objects and arrays, without recursion, 100,000 levels too", () => {
    expect(nestsDeeperThan(nested(64))).toBe(false);
    expect(nestsDeeperThan(nested(65))).toBe(true);
    expect(nestsDeeperThan(nested(100_000))).toBe(true);
    expect(nestsDeeperThan("text")).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: null }], c: {} }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: {} }] }, 3)).toBe(true);
  });

  it("reads text before any parser, skipping brackets in strings", () => {
    expect(textNestsDeeperThan(`${"[".repeat(64)}${"]".repeat(64)}`)).toBe(false);
    expect(textNestsDeeperThan(`${"[".repeat(65)}${"]".repeat(65)}`)).toBe(true);
    expect(textNestsDeeperThan(`{"a":"${"[".repeat(100)}\\"{{"}`)).toBe(false);
    expect(textNestsDeeperThan(`${"[]".repeat(1000)}`)).toBe(false);
  });

  it("a bounded schema names the field and the bound", () => {
    const schema = z.object({ edited: boundedDepth(z.record(z.string(), z.unknown()), "edited") });
    expect(schema.safeParse({ edited: { a: nested(63) } }).success).toBe(true);
    const refused = schema.safeParse({ edited: { a: nested(64) } });
    expect(refused.error?.issues).toMatchObject([{ path: ["edited"], message: "edited is nested deeper than 64 levels of objects and arrays" }]);
  });
});
