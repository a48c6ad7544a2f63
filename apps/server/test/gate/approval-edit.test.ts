import type { ToolDescriptor } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { refuseMisfit, sameArguments } from "../../src/gate/approval-edit.js";

const tool = (inputSchema: Record<string, unknown>): ToolDescriptor => ({ name: "lookup", description: "", inputSchema, tier: "read" });
const misfit = (descriptor: ToolDescriptor | undefined, args: Record<string, unknown>) => {
  try {
    refuseMisfit({ tool: "lookup", args }, descriptor);
    return null;
  } catch (err) {
    return { code: (err as { code: string }).code, message: (err as Error).message };
  }
};

describe("edited arguments against the tool's schema", () => {
  it("names each field that does not fit, and the arguments as a whole for an unknown key", () => {
    const schema = tool({
      type: "object",
      properties: { path: { type: "string" }, limit: { type: "integer", minimum: 1 } },
      required: ["path"],
      additionalProperties: false,
    });
    expect(misfit(schema, { path: "a", limit: 3 })).toBeNull();
    expect(misfit(schema, { limit: 0, extra: true })).toEqual({
      code: "INVALID",
      message: expect.stringMatching(
        /^the edited arguments do not fit the lookup tool: path: .*; limit: .*>=1; the arguments: .*"extra".*; the call is still pending$/,
      ),
    });
  });

  it.each([
    ["named", { $schema: "http://json-schema.org/draft-07/schema#" }],
    ["unnamed", {}],
  ])("reads a draft-07 schema's definitions, its draft %s", (_, draft) => {
    const schema = tool({
      ...draft,
      type: "object",
      properties: { name: { $ref: "#/definitions/Name" } },
      required: ["name"],
      definitions: { Name: { type: "string", minLength: 1 } },
    });
    expect(misfit(schema, { name: "x" })).toBeNull();
    expect(misfit(schema, { name: "" })?.message).toMatch(/: name: /);
  });

  it("refuses an edit of a tool the worker does not have now; the same arguments in another order are not an edit", () => {
    expect(misfit(undefined, {})?.message).toBe("the worker has no lookup tool now: an edit of this call cannot be checked; the call is still pending");
    expect(sameArguments({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBe(true);
    expect(sameArguments({ a: 1 }, { a: "1" })).toBe(false);
  });
});
