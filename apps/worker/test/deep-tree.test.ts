import { execFileSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { FileGuard, resolveSandbox, ShellRunner } from "../src/index.js";
import { defaultGuardRules } from "./default-guard-rules.js";

await loadShellParser();
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-deep-")));
const work = path.join(root, "work");
fs.mkdirSync(work);
// Deeper than the system's path limit: only relative steps can make (and reach) its bottom.
const LEVELS = 1500;
execFileSync("bash", [
  "-c",
  `cd "$1" && mkdir deep && cd deep && for i in $(seq ${LEVELS}); do mkdir dd && cd dd || exit 1; done && echo KEY=deep-secret > .env`,
  "-",
  work,
]);
fs.writeFileSync(path.join(work, "a.txt"), "hello\n");
afterAll(() =>
  execFileSync("bash", [
    "-c",
    `cd "$1" && for i in $(seq ${LEVELS}); do cd dd; done; while [ "$PWD" != "$1" ]; do cd .. && rm -rf dd deep; done; rm -rf "$2"`,
    "-",
    work,
    root,
  ]),
);

const guardRules: Guard = {
  agent: null,
  static: [...defaultGuardRules(), { tool: "shell_exec", pattern: "*", action: "allow", origin: "person" }],
  runtime: [],
  protectedPaths: [],
};
const guard = new FileGuard(guardRules, work);
const info = resolveSandbox({ mode: "required", network: false });

async function run(runner: ShellRunner, command: string): Promise<{ code: number | null; out: string }> {
  const child: ChildProcess = await runner.start(command, guard, "model");
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, out };
}

describe.each([
  ["watched", new ShellRunner(work, info)],
  ["walked", new ShellRunner(work, info, { watch: false })],
])("a folder nested past the path limit, the work tree %s", (_, runner) => {
  it("does not stop the model's commands, and what lies past the limit stays hidden from them", async () => {
    expect(await run(runner, "cat a.txt")).toEqual({ code: 0, out: "hello\n" });
    const reach = await run(runner, `cd deep && for i in $(seq ${LEVELS}); do cd dd 2>/dev/null || break; done; cat .env 2>&1; true`);
    expect(reach.code).toBe(0);
    expect(reach.out).not.toContain("deep-secret");
  });
});
