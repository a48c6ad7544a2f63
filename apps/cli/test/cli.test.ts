import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_RULES_TEXT, parseRulesOrThrow } from "@gatehouse/policy";
import { afterAll, describe, expect, it } from "vitest";
import { runCli as run } from "../../../test/support/cli-in-process.js";

const EXAMPLE = path.resolve(import.meta.dirname, "../../../examples/permissions.jsonc");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-cli-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

describe("gatehouse permissions eval", () => {
  it("writes one JSON decision per input line, in order, and reports malformed lines in place", async () => {
    const input = [
      '{"tool": "read_file", "args": {"path": "config/.env"}}',
      "not json",
      '{"tool": "shell_exec", "args": {"command": "git status && cat .env"}}',
      "",
      '{"args": {}}',
      '{"tool": "shell_exec", "args": {"command": "ls -la"}}',
      '{"tool": "x", "args": [1]}',
      '{"tool": "glob", "args": {"pattern": "**/*.ts"}}',
      '{"tool": "shell_exec"}',
    ].join("\n");
    const r = await run(["permissions", "eval", "--rules", EXAMPLE, "--cwd", dir], input);
    expect(r.code).toBe(0);
    const out = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(out).toHaveLength(8);
    expect(out[0]).toMatchObject({ action: "deny", rule: { tool: "read_file", pattern: "*.env", line: 8 } });
    expect(out[1].error).toMatch(/^line 2: not JSON/);
    expect(out[2]).toMatchObject({ action: "deny" });
    expect(out[3].error).toMatch(/^line 5: "tool" must be a non-empty string/);
    expect(out[4]).toMatchObject({ action: "allow", rule: { pattern: "ls *" } });
    expect(out[5].error).toMatch(/^line 7: "args" must be an object/);
    expect(out[6]).toMatchObject({ action: "allow", rule: { tool: "glob", pattern: "*" } });
    expect(out[7].error).toMatch(/^line 9: "args" is missing: give the call's arguments/);
    for (const o of out) expect(Object.keys(o).sort()).toEqual(o.error ? ["error"] : ["action", "reason", "rule"]);
  });

  it("applies the real-path check: a symlink to .env is denied", async () => {
    fs.writeFileSync(path.join(dir, ".env"), "K=1");
    fs.symlinkSync(".env", path.join(dir, "notes.txt"));
    const r = await run(
      ["permissions", "eval", "--rules", EXAMPLE, "--cwd", dir],
      '{"tool":"read_file","args":{"path":"notes.txt"}}\n{"tool":"shell_exec","args":{"command":"cat notes.txt"}}\n',
    );
    const out = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(out.map((o) => o.action)).toEqual(["deny", "deny"]);
    expect(out[0].reason).toMatch(/resolves to .*\.env/);
  });

  it("applies --mode", async () => {
    const r = await run(["permissions", "eval", "--rules", EXAMPLE, "--mode", "strict"], '{"tool":"shell_exec","args":{"command":"make"}}\n');
    expect(JSON.parse(r.stdout)).toMatchObject({ action: "deny" });
    expect(JSON.parse(r.stdout).reason).toMatch(/strict mode/);
  });
});

describe("gatehouse permissions explain", () => {
  it("writes the decision for a person, sub-command by sub-command", async () => {
    const r = await run(["permissions", "explain", "--rules", EXAMPLE, "--tool", "shell_exec", "--args", '{"command": "git status && npm publish"}']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ASK {2}shell_exec "git status && npm publish"/);
    expect(r.stdout).toMatch(/ALLOW "git status"\n\s+rule: static rule shell_exec "git status": allow at .*permissions\.jsonc:70:5/);
    expect(r.stdout).toMatch(/ASK {3}"npm publish"/);
    expect(r.stdout).toMatch(/"always" would add: "npm publish"/);
  });

  it("names bad arguments", async () => {
    expect((await run(["permissions", "explain", "--rules", EXAMPLE, "--tool", "x", "--args", "{oops"])).stderr).toMatch(/--args is not JSON/);
    expect((await run(["permissions", "explain", "--rules", EXAMPLE, "--args", "{}"])).stderr).toMatch(/missing --tool/);
    const mode = await run(["permissions", "explain", "--rules", EXAMPLE, "--tool", "x", "--args", "{}", "--mode", "fast"]);
    expect(mode).toMatchObject({ code: 2 });
    expect(mode.stderr).toMatch(/--mode must be one of default, accept-edits, read-only, yolo, strict/);
    expect((await run(["permissions", "explain", "--bogus"])).stderr).toMatch(/Unknown option '--bogus'/);
  });
});

describe("gatehouse permissions lint", () => {
  it("reports warnings with line and column and exits 0", async () => {
    const p = file("shadow.jsonc", `{\n  "read_file": {"*.env": "deny", "*": "allow"}\n}\n`);
    const r = await run(["permissions", "lint", p]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${p}:2:17: warning: read_file "*.env" (deny) is shadowed by read_file "*" (allow)`);
  });

  it("warns about a tool name no worker has, and not about built-in (task included) or MCP tool names", async () => {
    const p = file(
      "names.jsonc",
      `{\n  "read_fiel": {"*": "allow"},\n  "bash": {"*": "ask"},\n  "github_create_issue": "ask",\n  "files-2_read": "allow",\n  "task": {"explore": "allow"},\n  "grep": "allow"\n}\n`,
    );
    const r = await run(["permissions", "lint", p]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toEqual([
      `${p}:2:17: warning: no worker has a tool named "read_fiel": did you mean read_file?`,
      `${p}:3:12: warning: no worker has a tool named "bash": the built-in tools are read_file, write_file, edit_file, glob, grep, skill, shell_exec, task; MCP tools are named {server}_{tool}`,
    ]);
  });

  it("says so when there is nothing to report", async () => {
    expect((await run(["permissions", "lint", EXAMPLE])).stdout).toMatch(/no problems found/);
  });
});

describe("the rules files shipped", () => {
  const homeDenies = (text: string) =>
    parseRulesOrThrow(text, { file: "p", home: "/home/ada" })
      .filter((r) => r.tool === "read_file" && r.action === "deny" && r.pattern.startsWith("/home/ada/"))
      .map((r) => r.pattern);

  it.each([EXAMPLE, path.resolve(import.meta.dirname, "../demo/permissions.jsonc")])("%s denies every credential store the defaults deny", (f) => {
    const defaults = homeDenies(DEFAULT_RULES_TEXT);
    expect(defaults).toContain("/home/ada/.ssh/*");
    expect(homeDenies(fs.readFileSync(f, "utf8"))).toEqual(defaults);
  });
});

describe("a rules file that does not parse or validate", () => {
  const bad = () => file("bad.jsonc", `{\n  "shell_exec": {\n    "ls *": "alow"\n  }\n}\n`);
  const broken = () => file("broken.jsonc", `{\n  "read_file": "allow"\n  "glob": "allow"\n}\n`);
  it.each([
    ["eval", (f: string) => ["permissions", "eval", "--rules", f]],
    ["explain", (f: string) => ["permissions", "explain", "--rules", f, "--tool", "x", "--args", "{}"]],
    ["lint", (f: string) => ["permissions", "lint", f]],
  ])("%s exits 2 with FILE:LINE:COL on stderr", async (_name, args) => {
    const invalid = bad();
    const r = await run(args(invalid));
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`${invalid}:3:13: unknown action "alow" for shell_exec "ls *" (use allow, deny or ask)`);
    const unparsable = broken();
    const r2 = await run(args(unparsable));
    expect(r2.code).toBe(2);
    expect(r2.stderr.trim()).toBe(`${unparsable}:3:3: syntax error: CommaExpected`);
  });

  it("reports a missing rules file", async () => {
    const r = await run(["permissions", "eval", "--rules", path.join(dir, "nope.jsonc")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nope\.jsonc:1:1: cannot read the rules file/);
  });
});

describe("gatehouse", () => {
  it("prints usage for --help and an error for unknown commands", async () => {
    expect(await run(["--help"])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^usage: gatehouse \[--demo\]/) });
    expect(await run(["frobnicate"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown command "frobnicate"/) });
  });
});
