import { describe, expect, it } from "vitest";
import { AppendOnlyBytes } from "../../src/runner/providers/append-only-bytes.js";

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");

describe("text kept as bytes, only added to", () => {
  it("holds what was added, encoded as UTF-8, across the growth of its buffer", () => {
    const kept = new AppendOnlyBytes();
    const parts = ['{"a":"é"}', ",", "x".repeat(40_000), ',"\u2028 ü"'];
    for (const p of parts) kept.append(p);
    expect(text(kept.view())).toBe(parts.join(""));
    expect(kept.length).toBe(Buffer.byteLength(parts.join("")));
  });

  it("a view handed out stays as it was while more is added, the buffer grows, or a copy starts from fewer bytes", () => {
    const kept = new AppendOnlyBytes();
    kept.append("one,two");
    const view = kept.view();
    const shorter = kept.view(3);
    kept.append(",three" + "y".repeat(50_000));
    const again = kept.prefix(3);
    again.append(",four");
    expect([text(view), text(shorter), text(again.view())]).toEqual(["one,two", "one", "one,four"]);
    expect(text(kept.view()).startsWith("one,two,three")).toBe(true);
  });
});
