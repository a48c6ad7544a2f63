// The bypass classes: each case file under test/corpus/bypass/ holds command lines that hide a
// program, a read or a write, and what the rules must answer for each; real bash proves that
// the cases with a proof really run what they hide (bypass-proofs.test.ts).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveRealPath } from "@gatehouse/fs-guard";
import { evaluate, loadShellParser } from "@gatehouse/policy";
import { afterAll, describe, expect, it } from "vitest";
import { type SetName } from "./corpus/bypass/case.js";
import {
  BOUNDARY_FILES,
  BOUNDARY_SHELL,
  DEFAULT_WITH_TMP,
  DEFAULT_OPEN_SHELL,
  floorCtx,
  PROTECTED_FILE_WRITES,
  PROTECTED_WRITES,
  SECRET_FILE_READS,
  SECRET_READS,
} from "./corpus/bypass/floors.js";
import { GROUPS } from "./corpus/bypass/groups.js";
import { CRIT, CRITICAL } from "./corpus/bypass/paths.js";
import { robustCases, SYMLINKS } from "./corpus/bypass/real-files.js";
import { CWD, decideShell, HOME, KEY, OPEN, CLOSED, rules, SECRET, Tally, type Expected, type Layers } from "./support/shell-corpus.js";

await loadShellParser();

const SETS: Record<SetName, Layers> = { OPEN, CLOSED };

// Real files for symlinked operands, `..` after a symlinked directory, unresolvable paths.

const fx = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-corpus-fs-")));
const fxHome = path.join(fx, "home");
const fxWork = path.join(fx, "work");
fs.mkdirSync(path.join(fxHome, ".ssh", "keys"), { recursive: true });
fs.mkdirSync(path.join(fxWork, "deep", "dir"), { recursive: true });
fs.writeFileSync(path.join(fxHome, ".ssh", "id_rsa"), `${KEY}\n`);
fs.writeFileSync(path.join(fxWork, ".env"), `API_KEY=${SECRET}\n`);
fs.writeFileSync(path.join(fxWork, "notes.md"), "hi\n");
fs.symlinkSync(path.join(fxHome, ".ssh", "keys"), path.join(fxWork, "docs"));
fs.symlinkSync(".env", path.join(fxWork, "readme.txt"));
fs.symlinkSync(path.join(fxHome, ".ssh"), path.join(fxWork, "cfg"));
fs.symlinkSync("loop-b", path.join(fxWork, "loop-a"));
fs.symlinkSync("loop-a", path.join(fxWork, "loop-b"));
const FX = rules(
  `{
  "*": "ask",
  "read_file": { "*": "allow", "*.env": "deny", "~/.ssh/*": "deny" },
  "write_file": { "*": "allow", "*.env": "deny", "~/.ssh/*": "deny" },
  "shell_exec": { "*": "allow", "rm *": "deny" }
}`,
  fxHome,
);
const fxCtx = { layers: FX, cwd: fxWork, home: fxHome, resolveRealPath };
const ROBUST = robustCases(fxHome);

const tally = new Tally("bypass cases held");
const decideAny = (tool: string, args: Record<string, unknown>, c: Parameters<typeof evaluate>[1]) => {
  try {
    const d = evaluate({ tool, args }, c);
    return { action: d.action, reason: d.reason } as const;
  } catch (err) {
    return { action: "threw", reason: String(err) } as const;
  }
};
const expectMeets = (got: { action: string; reason: string }, expected: Expected) => {
  if (expected === "not-allow") expect(got.action, got.reason).not.toBe("allow");
  else expect(got.action, got.reason).toBe(expected);
};

const ctx = (set: SetName) => ({ layers: SETS[set], cwd: CWD, home: HOME });

afterAll(() => {
  tally.flush();
  fs.rmSync(fx, { recursive: true, force: true });
});

for (const [group, cases] of GROUPS) {
  describe(`bypass class ${group}`, () => {
    it.each(cases.map((c) => [c.cmd, c] as const))("%j", (_cmd, c) => {
      const got = decideShell(c.cmd, ctx(c.set));
      tally.record(c.cmd, c.set, c.expected, got, group);
      if (c.expected === "not-allow") expect(got.action, got.reason).not.toBe("allow");
      else expect(got.action, got.reason).toBe(c.expected);
      expect(got.action).not.toBe("threw");
    });
  });
}

describe("bypass class 6 paths: critical patterns on normalised paths", () => {
  it.each(CRITICAL)("%j is raised to ask (or denied by a floor)", (cmd) => {
    const got = decideShell(cmd, { layers: CRIT, cwd: CWD, home: HOME });
    tally.record(cmd, "ALL-ALLOWED", "not-allow", got, "6 critical");
    expect(got.action, got.reason).not.toBe("allow");
    expect(got.action, got.reason).not.toBe("threw");
  });
});

describe("bypass class 5/6: symlinked operands and `..` after a symlinked directory (real files)", () => {
  it.each(SYMLINKS)("%j", (cmd, expected) => {
    const got = decideShell(cmd, fxCtx);
    tally.record(cmd, "SYMLINKS", expected, got, "5 symlinks");
    if (expected === "not-allow") expect(got.action, got.reason).not.toBe("allow");
    else expect(got.action, got.reason).toBe(expected);
  });
});

describe("bypass class 8: unresolvable paths get a safe decision, never a throw", () => {
  it.each(ROBUST)("%j", (cmd, expected) => {
    const got = decideShell(cmd, fxCtx);
    if (expected === "any") {
      if (got.action === "threw") tally.record(cmd, "SYMLINKS", "not-allow", got, "8 robustness");
      expect(got.action, got.reason).not.toBe("threw");
      return;
    }
    tally.record(cmd, "SYMLINKS", expected, got, "8 robustness");
    expect(got.action, got.reason).not.toBe("threw");
    if (expected === "not-allow") expect(got.action, got.reason).not.toBe("allow");
    else expect(got.action, got.reason).toBe(expected);
  });

  it("answers a file tool on an unresolvable path, also when resolving throws", () => {
    const throwing = {
      ...fxCtx,
      resolveRealPath: () => {
        throw Object.assign(new Error("ELOOP"), { code: "ELOOP" });
      },
    };
    const cases: [string, string][] = [
      ["read_file", "loop-a/x"],
      ["write_file", "loop-a"],
      ["read_file", "notes.md/x"],
      ["write_file", `${"c/".repeat(3000)}z`],
      ["edit_file", "loop-b"],
    ];
    for (const [tool, p] of cases) {
      for (const c of [fxCtx, throwing]) {
        const got = decideAny(tool, { path: p }, c);
        const action = got.action;
        tally.record(`${tool} ${p.slice(0, 40)}`, c === fxCtx ? "SYMLINKS" : "SYMLINKS+throwing resolver", "not-allow", got, "8 robustness");
        expect(action, got.reason).not.toBe("threw");
        expect(action).not.toBe("allow");
      }
    }
  });
});

describe("floors: the data directory and the worker's configuration are never written", () => {
  it.each(PROTECTED_WRITES)("%j", (cmd, expected) => {
    const got = decideShell(cmd, floorCtx);
    tally.record(cmd, "FLOOR", expected, got, "floor protected");
    expectMeets(got, expected);
  });
  it.each(PROTECTED_FILE_WRITES)("%s %j", (tool, p) => {
    const got = decideAny(tool, { path: p }, floorCtx);
    tally.record(`${tool} ${p}`, "FLOOR", "deny", got, "floor protected");
    expectMeets(got, "deny");
  });
});

describe("floors: no tool reads the worker's token, environment or memory", () => {
  it.each(SECRET_READS)("%j", (cmd, expected) => {
    const got = decideShell(cmd, floorCtx);
    tally.record(cmd, "FLOOR", expected, got, "floor secrets");
    expectMeets(got, expected);
  });
  it.each(SECRET_FILE_READS)("%s %j", (tool, p, expected) => {
    const args = tool === "glob" ? { pattern: p } : tool === "grep" ? { pattern: "TOKEN", path: p } : { path: p };
    const got = decideAny(tool, args, floorCtx);
    tally.record(`${tool} ${p}`, "FLOOR", expected, got, "floor secrets");
    expectMeets(got, expected);
  });
});

describe("floors: the workspace boundary under the default rules", () => {
  it.each(BOUNDARY_FILES.map(([t, p, l, e]) => [t, p, l === DEFAULT_WITH_TMP ? "default+/tmp" : "default", l, e] as const))(
    "%s %j (%s)",
    (tool, p, name, layers, expected) => {
      const got = decideAny(tool, { path: p }, { layers, cwd: CWD, home: HOME });
      tally.record(`${tool} ${p}`, name, expected, got, "floor boundary");
      expectMeets(got, expected);
    },
  );
  it.each(BOUNDARY_SHELL)("%j", (cmd, expected) => {
    const got = decideShell(cmd, { layers: DEFAULT_OPEN_SHELL, cwd: CWD, home: HOME });
    tally.record(cmd, "default+shell allow", expected, got, "floor boundary");
    expectMeets(got, expected);
  });
});
