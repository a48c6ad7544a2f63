import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";

const BIN = path.resolve(import.meta.dirname, "../bin/gatehouse.js");
const sha256 = (t: string) => `sha256:${crypto.createHash("sha256").update(t).digest("hex")}`;

describe("gatehouse token", () => {
  it("prints a new random token with its hash, and hashes one given on stdin", () => {
    const made = JSON.parse(execFileSync(process.execPath, [BIN, "token"], { encoding: "utf8" })) as { token: string; tokenHash: string };
    expect(made.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(made.tokenHash).toBe(sha256(made.token));
    expect(execFileSync(process.execPath, [BIN, "token", "hash"], { input: `${made.token}\n`, encoding: "utf8" }).trim()).toBe(made.tokenHash);
  });
});
