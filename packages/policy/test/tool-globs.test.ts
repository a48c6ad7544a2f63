import { describe, expect, it } from "vitest";
import { appendRuleText, lintRules, loadShellParser, parseRulesOrThrow, toolKeyMatches } from "../src/index.js";
import { context, decide, HOME, ruleset } from "./helpers.js";

await loadShellParser();

const under = (text: string) => context({ static: ruleset(text) });

describe("globs in tool names", () => {
  const rules = `{
    "*": "allow",
    "github_*": "ask",
    "github_create_issue": "deny",
    "github_get_*": "allow",
  }`;

  it.each([
    ["github_create_issue", "deny"],
    ["github_delete_repo", "ask"],
    ["github_get_issue", "allow"],
    ["gitlab_delete_repo", "allow"],
    ["github", "allow"],
  ])("%s -> %s", (tool, action) => {
    expect(decide(tool, {}, under(rules)).action).toBe(action);
  });

  it("names the glob rule that decided", () => {
    expect(decide("github_merge", {}, under(rules)).rule).toMatchObject({ tool: "github_*", pattern: "*", line: 3 });
  });

  it("a later exact entry and a later glob both override by order, last match wins", () => {
    expect(decide("github_create_issue", {}, under(`{"github_create_issue": "deny", "github_*": "allow"}`)).action).toBe("allow");
  });

  it("a glob key over built-in tools matches their subjects as the built-in's own key would", () => {
    const ctx = under(`{"*": "allow", "*_file": {"*.env": "deny"}}`);
    expect(decide("read_file", { path: "config/.env" }, ctx).action).toBe("deny");
    expect(decide("write_file", { path: ".env" }, ctx).action).toBe("deny");
    expect(decide("read_file", { path: "README.md" }, ctx).action).toBe("allow");
  });

  it("plain names match only themselves; braces and ? are globs too", () => {
    expect(toolKeyMatches("github_create_issue", "github_create_issues")).toBe(false);
    expect(toolKeyMatches("{github,gitlab}_*", "gitlab_x")).toBe(true);
    expect(toolKeyMatches("fs_read_?", "fs_read_x")).toBe(true);
    expect(toolKeyMatches("*", "anything")).toBe(true);
  });

  it("lint: a glob key's pattern is not checked against the key's own spelling, and a later glob shadows", () => {
    const { warnings } = lintRules(`{"github_create_issue": "deny", "github_*": {"*": "ask"}}`, { file: "p.jsonc", home: HOME });
    expect(warnings.map((w) => w.message)).toEqual([expect.stringContaining('is shadowed by github_* "*" (ask)')]);
    expect(lintRules(`{"github_*": {"github_create*": "deny"}}`, { file: "p.jsonc", home: HOME }).warnings).toEqual([]);
  });

  it("always: an approved rule moves its entry after a later glob that would override it", () => {
    const out = appendRuleText(`{"github_create_issue": {"*": "ask"}, "github_*": "ask"}`, { tool: "github_create_issue", pattern: "github_create_issue" });
    const parsed = parseRulesOrThrow(out, { file: "p", home: HOME });
    expect(parsed.map((r) => r.tool)).toEqual(["github_*", "github_create_issue", "github_create_issue"]);
    expect(decide("github_create_issue", {}, under(out)).action).toBe("allow");
  });
});
