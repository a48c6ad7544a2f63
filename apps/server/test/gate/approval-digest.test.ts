import type { Presentation } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { approvalDigest, refuseChanged } from "../../src/gate/approval-digest.js";

const shown: Presentation = {
  kind: "command",
  content: "rm -rf build",
  cwd: "/work",
  truncated: false,
  fullSize: 12,
  hidden: 0,
  hiddenKinds: [],
  lookAlikes: [],
};
const call = { tool: "shell_exec", args: { command: "rm -rf build", timeout: 5 } };

describe("the digest of a held call", () => {
  it("is the same for the same call read back in another key order, and differs when the call or what is shown differs", () => {
    const digest = approvalDigest(call, shown);
    expect(approvalDigest({ tool: "shell_exec", args: { timeout: 5, command: "rm -rf build" } }, JSON.parse(JSON.stringify(shown)) as Presentation)).toBe(
      digest,
    );
    expect(approvalDigest({ ...call, args: { ...call.args, command: "rm -rf build2" } }, shown)).not.toBe(digest);
    expect(approvalDigest(call, { ...shown, content: "rm -rf bui\\bld" })).not.toBe(digest);
    expect(approvalDigest({ ...call, tool: "other" }, shown)).not.toBe(digest);
    expect(approvalDigest(call, null)).not.toBe(digest);
  });

  it("refuses an answer given for another call with a CHANGED error, and lets one without a digest through", () => {
    expect(() => refuseChanged(approvalDigest(call, shown), call, shown)).not.toThrow();
    expect(() => refuseChanged(undefined, call, shown)).not.toThrow();
    expect(() => refuseChanged(approvalDigest(call, null), call, shown)).toThrow(
      expect.objectContaining({ code: "CHANGED", message: expect.stringContaining("the call changed since it was shown") }),
    );
  });
});
