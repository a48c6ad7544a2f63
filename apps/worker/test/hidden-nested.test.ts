import fs from "node:fs";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import { afterAll, expect, it } from "vitest";
import { FileGuard, resolveSandbox, ShellRunner } from "../src/index.js";
import { defaultGuardRules } from "./default-guard-rules.js";

await loadShellParser();
// Outside the system's temporary folder, which the sandbox replaces (and so never masks in).
const root = fs.realpathSync(fs.mkdtempSync("/var/tmp/gh-hidden-"));
const work = path.join(root, "work");
const data = path.join(root, "data");
fs.mkdirSync(work);
fs.mkdirSync(data);
fs.writeFileSync(path.join(data, "state.db"), "every session");
fs.writeFileSync(path.join(work, "a.txt"), "hello\n");
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

it("a protected file inside a protected folder (the store in the data directory) is hidden with it, and commands run", async () => {
  const rules = [...defaultGuardRules(), { tool: "shell_exec", pattern: "*", action: "allow" as const, origin: "person" as const }];
  const guard = new FileGuard({ agent: null, static: rules, runtime: [], protectedPaths: [data, path.join(data, "state.db")] }, work);
  const runner = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
  for (const origin of ["model", "person"] as const) {
    const child = await runner.start(`cat a.txt; cat ${data}/state.db 2>&1 >/dev/null | grep -c denied`, guard, origin);
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d));
    child.stderr!.on("data", (d: Buffer) => (out += d));
    expect(await new Promise((resolve) => child.on("close", resolve))).toBe(0);
    expect(out).toBe("hello\n1\n");
  }
});
