import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_RULES_TEXT, parseRules, parseRulesOrThrow, RulesFileError } from "../src/index.js";
import { RulesFileCache } from "../src/node/index.js";
import { HOME } from "./helpers.js";

const opts = { file: "p.jsonc", home: HOME };

describe("parsing permissions.jsonc", () => {
  it("flattens entries into ordered rules with their positions", () => {
    const rules = parseRulesOrThrow(`{\n  "*": "ask",\n  "read_file": { "*": "allow", "*.env": "deny" },\n}`, opts);
    expect(rules.map((r) => [r.tool, r.pattern, r.action])).toEqual([
      ["*", "*", "ask"],
      ["read_file", "*", "allow"],
      ["read_file", "*.env", "deny"],
    ]);
    expect(rules[2]!.source).toEqual({ file: "p.jsonc", line: 3, column: 32 });
  });

  it("reads the seed's default rules, comments included", () => {
    const rules = parseRulesOrThrow(DEFAULT_RULES_TEXT, opts);
    expect(rules).toHaveLength(78);
    expect(rules.every((r) => r.origin === "person")).toBe(true);
    expect(rules.filter((r) => r.pattern.startsWith(`${HOME}/.`)).map((r) => r.pattern)).toContain(`${HOME}/.ssh/*`);
  });

  it("expands ~/ and $HOME/ at load time", () => {
    const rules = parseRulesOrThrow(`{"read_file": {"~/projects/*": "allow", "$HOME/.ssh/*": "deny"}}`, opts);
    expect(rules.map((r) => r.pattern)).toEqual(["/home/ada/projects/*", "/home/ada/.ssh/*"]);
  });

  it("marks rules with a trailing // approved comment as approval-made", () => {
    const rules = parseRulesOrThrow(`{"shell_exec": {\n "*": "ask",\n "git push *": "allow" // approved by ada\n}}`, opts);
    expect(rules.map((r) => r.origin)).toEqual(["person", "approval"]);
  });

  it.each([
    [`{"read_file": "allo"}`, 1, 15, /unknown action "allo"/],
    [`{\n  "shell_exec": {\n    "ls *": "yes"\n  }\n}`, 3, 13, /unknown action "yes" for shell_exec "ls \*"/],
    [`{"read_file": 3}`, 1, 15, /must be an action string or an object/],
    [`{"read_file": {"*": true}}`, 1, 21, /must be a string/],
    [`[1, 2]`, 1, 1, /must be a JSON object/],
    [`{"a": "allow"`, 1, 14, /syntax error/],
    [`{"a": "allow" "b": "deny"}`, 1, 15, /syntax error: CommaExpected/],
    [`{"": "allow"}`, 1, 2, /empty tool name/],
    [`{"x": {"": "allow"}}`, 1, 8, /empty pattern/],
  ])("reports %j with line and column", (text, line, column, message) => {
    const { errors } = parseRules(text, opts);
    expect(errors[0]).toMatchObject({ line, column });
    expect(errors[0]!.message).toMatch(message);
    expect(() => parseRulesOrThrow(text, opts)).toThrow(RulesFileError);
  });

  it("names the file, line and column in the thrown message", () => {
    expect(() => parseRulesOrThrow(`{\n "x": "never"}`, opts)).toThrow(/^p\.jsonc:2:7: unknown action "never"/);
  });
});

describe("RulesFileCache", () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), "gh-rules-"));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    vi.restoreAllMocks();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it("seeds the default rules on first use, without overwriting later", () => {
    const file = path.join(tmp(), "workers", "w1", "permissions.jsonc");
    const cache = new RulesFileCache();
    expect(cache.load(file, { home: HOME, seed: true }).rules).toHaveLength(78);
    expect(fs.readFileSync(file, "utf8")).toBe(DEFAULT_RULES_TEXT);
  });

  it("never re-reads an unchanged file, and picks up an edit on the next call", () => {
    const file = path.join(tmp(), "p.jsonc");
    fs.writeFileSync(file, `{"*": "ask"}`);
    const cache = new RulesFileCache();
    const read = vi.spyOn(fs, "readFileSync");
    const first = cache.load(file, { home: HOME });
    for (let i = 0; i < 100; i++) expect(cache.load(file, { home: HOME })).toBe(first);
    expect(read).toHaveBeenCalledTimes(1);
    fs.writeFileSync(file, `{"*": "allow"}`);
    expect(cache.load(file, { home: HOME }).rules[0]!.action).toBe("allow");
    expect(read).toHaveBeenCalledTimes(2);
  });

  it("notices a file replaced by rename even with the same size", () => {
    const dir = tmp();
    const file = path.join(dir, "p.jsonc");
    fs.writeFileSync(file, `{"*": "deny"}`);
    const cache = new RulesFileCache();
    expect(cache.load(file, { home: HOME }).rules[0]!.action).toBe("deny");
    fs.writeFileSync(path.join(dir, "next"), `{"*": "ask" }`);
    fs.renameSync(path.join(dir, "next"), file);
    expect(cache.load(file, { home: HOME }).rules[0]!.action).toBe("ask");
  });

  it("throws a located error for an invalid file, and recovers once it is fixed", () => {
    const file = path.join(tmp(), "p.jsonc");
    fs.writeFileSync(file, `{\n  "read_file": "maybe"\n}`);
    const cache = new RulesFileCache();
    expect(() => cache.load(file, { home: HOME })).toThrow(`${file}:2:16: unknown action "maybe"`);
    fs.writeFileSync(file, `{\n  "read_file": "allow"\n}`);
    expect(cache.load(file, { home: HOME }).rules[0]!.action).toBe("allow");
  });

  it("reports a missing file as an error, not as allow", () => {
    expect(() => new RulesFileCache().load("/nonexistent/p.jsonc", { home: HOME })).toThrow(/cannot read the rules file/);
  });
});
