import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { appendRuleText, DEFAULT_RULES_TEXT, parseRulesOrThrow } from "../src/index.js";
import { appendRule } from "../src/node/index.js";
import { HOME } from "./helpers.js";

const parse = (text: string) => parseRulesOrThrow(text, { file: "p", home: HOME });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-append-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("appendRuleText", () => {
  it("turns a string entry into an object that keeps its old action under *", () => {
    const out = appendRuleText(DEFAULT_RULES_TEXT, { tool: "shell_exec", pattern: "git push *" });
    const rules = parse(out).filter((r) => r.tool === "shell_exec");
    expect(rules.map((r) => [r.pattern, r.action, r.origin])).toEqual([
      ["*", "ask", "person"],
      ["git push *", "allow", "approval"],
    ]);
  });

  it("appends last in an object entry, keeping comments and indentation", () => {
    const text = [
      "// top comment",
      "{",
      "    // the catch-all",
      '    "*": "ask",',
      '    "shell_exec": {',
      '        "*": "ask", // keep asking',
      '        "ls *": "allow"',
      "    }",
      "}",
      "",
    ].join("\n");
    const out = appendRuleText(text, { tool: "shell_exec", pattern: "npm test *", note: "by ada" });
    expect(out).toContain("// top comment");
    expect(out).toContain("// the catch-all");
    expect(out).toContain('"*": "ask", // keep asking');
    expect(out).toContain('        "npm test *": "allow" // approved by ada');
    const rules = parse(out);
    expect(rules.at(-1)).toMatchObject({ tool: "shell_exec", pattern: "npm test *", origin: "approval" });
  });

  it("adds a new tool entry at the end", () => {
    const out = appendRuleText(`{"*": "ask"}`, { tool: "mcp_search", pattern: "*" });
    expect(parse(out).at(-1)).toMatchObject({ tool: "mcp_search", pattern: "*", action: "allow", origin: "approval" });
  });

  it("moves an existing pattern last rather than duplicating it", () => {
    const out = appendRuleText(`{"shell_exec": {"ls *": "allow", "*": "ask"}}`, { tool: "shell_exec", pattern: "ls *" });
    expect(parse(out).map((r) => r.pattern)).toEqual(["*", "ls *"]);
  });

  it("moves the tool's entry after a later top-level * so the new rule takes effect", () => {
    const text = `{\n  "shell_exec": {\n    // inner note\n    "ls *": "allow"\n  },\n  "*": "ask"\n}`;
    const out = appendRuleText(text, { tool: "shell_exec", pattern: "make *" });
    const rules = parse(out);
    expect(rules.at(-1)).toMatchObject({ tool: "shell_exec", pattern: "make *" });
    expect(rules.findIndex((r) => r.tool === "*")).toBeLessThan(rules.findIndex((r) => r.pattern === "ls *"));
    expect(out).toContain("// inner note");
  });

  it("refuses to edit a file that does not parse", () => {
    expect(() => appendRuleText(`{"a": `, { tool: "x", pattern: "*" })).toThrow(/does not parse/);
  });
});

describe("appendRule on disk", () => {
  it("leaves a valid file holding all 50 rules after 50 concurrent appends", async () => {
    const file = path.join(dir, "permissions.jsonc");
    fs.writeFileSync(file, DEFAULT_RULES_TEXT);
    await Promise.all(Array.from({ length: 50 }, (_, i) => appendRule(file, { tool: "shell_exec", pattern: `cmd${i} *` })));
    const rules = parse(fs.readFileSync(file, "utf8"));
    const added = rules.filter((r) => r.origin === "approval").map((r) => r.pattern);
    expect(new Set(added).size).toBe(50);
    expect(fs.readFileSync(file, "utf8")).toContain("// Gatehouse tool permissions");
    expect(fs.readdirSync(dir).filter((f) => f !== "permissions.jsonc")).toEqual([]);
  });
});
