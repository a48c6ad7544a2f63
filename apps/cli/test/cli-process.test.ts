// The built program, started as a user starts it: one process per command path, for what only a
// process shows (its exit code, stdin, and which of stdout and stderr gets what). The commands'
// logic is checked in-process by cli.test.ts.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const BIN = path.resolve(import.meta.dirname, "../bin/gatehouse.js");
const EXAMPLE = path.resolve(import.meta.dirname, "../../../examples/permissions.jsonc");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-cli-process-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function start(args: string[], input = "") {
  const r = spawnSync(process.execPath, [BIN, ...args], { input, encoding: "utf8", cwd: dir });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("the gatehouse program", () => {
  it("permissions eval reads calls on stdin and writes one decision a line on stdout", () => {
    const r = start(["permissions", "eval", "--rules", EXAMPLE], '{"tool":"shell_exec","args":{"command":"ls -la"}}\nnot json\n');
    expect(r).toMatchObject({ code: 0, stderr: "" });
    const out = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(out).toEqual([expect.objectContaining({ action: "allow" }), { error: expect.stringMatching(/^line 2: not JSON/) }]);
  });

  it("permissions explain writes its answer on stdout and exits 0", () => {
    const r = start(["permissions", "explain", "--rules", EXAMPLE, "--tool", "shell_exec", "--args", '{"command": "npm publish"}']);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(/^ASK {2}shell_exec "npm publish"/);
  });

  it("permissions lint of a file that does not validate exits 2 with FILE:LINE:COL on stderr", () => {
    const bad = path.join(dir, "bad.jsonc");
    fs.writeFileSync(bad, `{\n  "shell_exec": {\n    "ls *": "alow"\n  }\n}\n`);
    const r = start(["permissions", "lint", bad]);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toMatch(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3:13: unknown action "alow"`));
  });

  it("prints its usage on stdout for --help, and exits 2 with a line on stderr for an unknown command", () => {
    expect(start(["--help"])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^usage: gatehouse \[--demo\]/), stderr: "" });
    expect(start(["frobnicate"])).toMatchObject({ code: 2, stdout: "", stderr: expect.stringMatching(/^gatehouse: unknown command "frobnicate"/) });
  });
});
