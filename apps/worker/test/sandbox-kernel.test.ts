import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { FileGuard, resolveSandbox, ShellRunner } from "../src/index.js";
import { keyringFilter } from "../src/sandbox/seccomp-filter.js";
import { EVERY_SANDBOX, runIn } from "./every-sandbox.js";

await loadShellParser();
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-kernel-")));
const work = path.join(root, "work");
fs.mkdirSync(work);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const rules: Guard = { agent: null, static: [{ tool: "shell_exec", pattern: "*", action: "allow", origin: "person" }], runtime: [], protectedPaths: [] };
const guard = new FileGuard(rules, work);
const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
afterAll(() => runner.close());

/**
 * Each writes a setting's current value back (a no-op on the host if it got through) and says
 * whether the write was refused. A worker run as root could write them without the floors.
 */
const WRITE_BACK = (file: string) => `v=$(cat ${file}) && { printf '%s\\n' "$v" > ${file} && echo WROTE; } 2>&1`;

describe("the kernel's settings in every sandbox", () => {
  it.each(EVERY_SANDBOX)("%s: /proc/sys is read-only (core_pattern, hostname) and the host name is the sandbox's own", async (use) => {
    const before = fs.readFileSync("/proc/sys/kernel/core_pattern", "utf8");
    const r = await runIn(
      use,
      runner,
      guard,
      `${WRITE_BACK("/proc/sys/kernel/core_pattern")}; ${WRITE_BACK("/proc/sys/kernel/hostname")}; readlink /proc/self/ns/uts`,
    );
    expect(r.out).not.toMatch(/WROTE/);
    expect(r.out.match(/Read-only file system/g)).toHaveLength(2);
    expect(r.out).not.toContain(fs.readlinkSync("/proc/self/ns/uts"));
    expect(fs.readFileSync("/proc/sys/kernel/core_pattern", "utf8")).toBe(before);
  });
});

/** A python3 program that adds, reads or removes a key in the user keyring through the kernel's calls. */
const KEYS = String.raw`
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
USER_KEYRING = -4
KEYCTL_SEARCH, KEYCTL_READ, KEYCTL_UNLINK = 10, 11, 9
libc.syscall.restype = ctypes.c_long
def search(name):
    return libc.syscall(250 if ARCH == "x86_64" else 219, KEYCTL_SEARCH, USER_KEYRING, b"user", name.encode(), 0)
ARCH = __import__("platform").machine()
op, name = sys.argv[1], sys.argv[2]
if op == "add":
    payload = sys.argv[3].encode()
    kid = libc.syscall(248 if ARCH == "x86_64" else 217, b"user", name.encode(), payload, len(payload), USER_KEYRING)
    print(kid if kid > 0 else "ERR %d" % ctypes.get_errno())
elif op == "read":
    kid = search(name)
    if kid < 0:
        print("SEARCH-REFUSED errno=%d" % ctypes.get_errno()); sys.exit(0)
    buf = ctypes.create_string_buffer(256)
    n = libc.syscall(250 if ARCH == "x86_64" else 219, KEYCTL_READ, kid, buf, 256, 0)
    print("READ", buf.raw[:max(n, 0)].decode())
elif op == "remove":
    kid = search(name)
    if kid > 0: libc.syscall(250 if ARCH == "x86_64" else 219, KEYCTL_UNLINK, kid, USER_KEYRING, 0, 0)
`;

describe("the user's kernel keyring in every sandbox", () => {
  const script = path.join(work, "keys.py");
  fs.writeFileSync(script, KEYS);
  const name = `gh-test-${process.pid}`;
  const secret = `KEYRING-SECRET-${process.pid}`;
  const host = (...args: string[]) => spawnSync("python3", [script, ...args], { encoding: "utf8" });
  afterAll(() => host("remove", name));

  it.each(EVERY_SANDBOX)("%s: a key the worker's user holds is not read: keyctl is refused with EPERM, /proc/keys shows nothing", async (use) => {
    const added = host("add", name, secret);
    expect(added.stdout.trim()).toMatch(/^\d+$/);
    expect(host("read", name).stdout).toContain(`READ ${secret}`);
    const r = await runIn(use, runner, guard, `python3 ${script} read ${name}; cat /proc/keys 2>&1`);
    expect(r.out).toContain("SEARCH-REFUSED errno=1");
    expect(r.out).not.toContain(secret);
    expect(r.out).not.toContain(name);
  });
});

describe("the seccomp filter", () => {
  it("is refused for an architecture whose call numbers it does not know, with the reason", () => {
    expect(() => keyringFilter("riscv64")).toThrow(/no seccomp filter for the riscv64 architecture/);
    expect(keyringFilter("x64").length % 8).toBe(0);
    expect(keyringFilter("arm64").equals(keyringFilter("x64"))).toBe(false);
  });
});
