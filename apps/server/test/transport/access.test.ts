import type { Principal } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { hashToken, Tokens } from "../../src/transport/auth.js";
import { allows } from "../../src/transport/roles/access.js";

const client = (role: Principal["role"], workers: string[] = ["*"], shell = false): Principal => ({ kind: "client", name: "x", role, workers, shell });

describe("roles", () => {
  it("admin: everything; approver: its workers, shell only when allowed; viewer: watching its workers", () => {
    const table = [
      [client("admin", []), "w9", { watch: true, use: true, shell: true }],
      [client("approver", ["w1"]), "w1", { watch: true, use: true, shell: false }],
      [client("approver", ["w1"], true), "w1", { watch: true, use: true, shell: true }],
      [client("approver", ["w1"], true), "w2", { watch: false, use: false, shell: false }],
      [client("viewer"), "w2", { watch: true, use: false, shell: false }],
      [client("viewer", ["w1"]), "w2", { watch: false, use: false, shell: false }],
      [{ kind: "worker", name: "box", workers: ["*"] } as Principal, "w1", { watch: false, use: false, shell: false }],
    ] as const;
    for (const [p, worker, want] of table) {
      expect(
        { watch: allows(p, worker, "watch"), use: allows(p, worker, "use"), shell: allows(p, worker, "shell") },
        `${p.role ?? p.kind} on ${worker}`,
      ).toEqual(want);
    }
  });

  it("knows a token by its hash as by itself, and tells a changed grant from a standing one", () => {
    const token = "0123456789abcdef0123";
    const before = new Tokens([], [{ name: "ada", tokenHash: hashToken(token), role: "viewer", shell: false }]);
    const p = before.principal(token)!;
    expect(p).toMatchObject({ kind: "client", name: "ada", role: "viewer", workers: ["*"] });
    expect(before.principal("0123456789abcdef0124")).toBeNull();
    expect(before.grants(p)).toBe(true);
    expect(new Tokens([], [{ name: "ada", token, role: "viewer", shell: false }]).grants(p)).toBe(true);
    expect(new Tokens([], [{ name: "ada", token, role: "approver", workers: ["w1"], shell: false }]).grants(p)).toBe(false);
    expect(new Tokens([], []).grants(p)).toBe(false);
  });
});
