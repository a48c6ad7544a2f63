import { describe, expect, it } from "vitest";
import { AssumedPaths, LinkRequest } from "../src/index.js";

const run = (assumed: unknown) => ({
  type: "run",
  requestId: "r",
  sessionId: "s",
  toolName: "read_file",
  args: { path: "a.txt" },
  timeoutMs: 1000,
  guardId: 0,
  assumed,
});

describe("a run message's assumed paths", () => {
  it("are absolute paths, each to where it leads or the error that stopped it", () => {
    const assumed = { "/w/a.txt": { real: "/w/a.txt" }, "/w/loop": { error: "ELOOP" } };
    expect(LinkRequest.safeParse(run(assumed))).toMatchObject({ success: true, data: { assumed } });
  });

  it.each([
    ["a relative path", { "a.txt": { real: "/w/a.txt" } }],
    ["both a real path and an error", { "/w/a": { real: "/w/a", error: "ENOENT" } }],
    ["neither", { "/w/a": {} }],
    ["a real path that is not text", { "/w/a": { real: 1 } }],
    ["another key", { "/w/a": { target: "/w/b" } }],
    ["a list", [{ real: "/w/a" }]],
    ["a key of the prototype", JSON.parse('{"__proto__": {"real": "/x"}}') as unknown],
    ["more than 256 paths", Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`/w/${i}`, { real: `/w/${i}` }]))],
  ])("refuse %s, naming the field", (_, assumed) => {
    const parsed = LinkRequest.safeParse(run(assumed));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ["assumed"], message: expect.stringMatching(/absolute paths/) });
    expect(AssumedPaths.safeParse(assumed).success).toBe(false);
  });
});
