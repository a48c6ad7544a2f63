// The worked examples of the rules (evaluation, shell parsing, "always", subagents) and of tiers,
// modes and safety overrides (docs/design.md, "Decisions"), as the engine answers them.
import { describe, expect, it } from "vitest";
import { applyMode, commandPattern, loadShellParser, suggestPatterns } from "../src/index.js";
import { Ruleset } from "../src/ruleset.js";
import { context, decide, ruleset, shell } from "./helpers.js";

await loadShellParser();

describe("examples: rule evaluation", () => {
  it("allows .env.example although *.env is denied earlier", () => {
    expect(decide("read_file", { path: ".env.example" }).action).toBe("allow");
    expect(decide("read_file", { path: ".env" }).action).toBe("deny");
  });

  it("lets the * catch-all reach MCP tools by their qualified name", () => {
    expect(decide("filesystem_read_file", { path: "x" }).action).toBe("ask");
    expect(decide("filesystem_read_file", {}, context({ static: ruleset(`{"*": "ask", "filesystem_read_file": "allow"}`) })).action).toBe("allow");
  });

  it("expands ~/projects/* and $HOME/.ssh/*", () => {
    const r = ruleset(`{"read_file": {"~/projects/*": "allow", "$HOME/.ssh/*": "deny"}}`);
    expect(decide("read_file", { path: "/home/ada/projects/a.txt" }, context({ static: r })).action).toBe("allow");
    expect(decide("read_file", { path: "~/.ssh/id_ed25519" }, context({ static: r })).action).toBe("deny");
  });

  it("applies the manual-editing examples", () => {
    const r = ruleset(`{
      "shell_exec": { "*": "ask", "git status": "allow", "bun test *": "allow" },
      "my_tool": "allow",
      "write_file": { "*": "allow", "*.env": "deny", "/etc/*": "deny" }
    }`);
    const ctx = context({ static: r });
    expect(shell("git status", ctx).action).toBe("allow");
    expect(shell("bun test", ctx).action).toBe("allow");
    expect(shell("bun test src/a.test.ts", ctx).action).toBe("allow");
    expect(shell("git push", ctx).action).toBe("ask");
    expect(decide("my_tool", { any: 1 }, ctx).action).toBe("allow");
    expect(decide("write_file", { path: "/etc/hosts" }, ctx).action).toBe("deny");
    expect(decide("write_file", { path: "a/.env" }, ctx).action).toBe("deny");
    expect(decide("write_file", { path: "a/b.txt" }, ctx).action).toBe("allow");
  });

  it('opens everything with a final "*": "allow" (disabling the gate)', () => {
    const ctx = context({ static: ruleset(`{"*": "allow"}`) });
    expect(shell("curl x | tee y", ctx).action).toBe("allow");
    expect(decide("read_file", { path: ".env" }, ctx).action).toBe("allow");
  });

  it("keeps deny rules last in the allow-most-tools example; unlisted tools still ask", () => {
    const ctx = context({
      static: ruleset(`{
        "read_file": { "*": "allow", "*.env": "deny", "*credentials*": "deny" },
        "write_file": { "*": "allow", "*.env": "deny" },
        "edit_file": { "*": "allow", "*.env": "deny" },
        "glob": "allow", "grep": "allow", "skill": "allow", "shell_exec": "allow"
      }`),
    });
    expect(decide("read_file", { path: "aws/credentials.json" }, ctx).action).toBe("deny");
    expect(decide("edit_file", { path: ".env" }, ctx).action).toBe("deny");
    expect(decide("skill", { name: "x" }, ctx).action).toBe("allow");
    expect(shell("make build", ctx).action).toBe("allow");
    expect(decide("mcp_tool", {}, ctx).action).toBe("ask");
  });
});

describe("examples: pipeline handling", () => {
  const ctx = context({ static: ruleset(`{"shell_exec": {"*": "ask", "ls *": "allow", "grep *": "allow", "rm *": "deny"}}`) });
  it.each([
    ["ls | grep x", "allow"],
    ["ls | grep x && make", "ask"],
    ["ls; rm -rf x", "deny"],
    ["make || rm x", "deny"],
  ])("%s -> %s", (cmd, action) => expect(shell(cmd, ctx).action).toBe(action));
});

describe("examples: always approve", () => {
  it("generates the seed's three patterns", () => {
    expect(commandPattern(["git", "push", "origin", "main"])).toBe("git push *");
    expect(commandPattern(["npm", "run", "build"])).toBe("npm run build");
    expect(commandPattern(["cat", "README.md"])).toBe("cat *");
  });

  it("git push * also approves git push --force origin main (the cascade example)", () => {
    const runtime = new Ruleset([{ tool: "shell_exec", pattern: "git push *", action: "allow", origin: "approval" }]);
    expect(shell("git push --force origin main", context({ runtime })).action).toBe("allow");
    expect(shell("git push", context({ runtime })).action).toBe("allow");
  });

  it("suggests the pattern from the arity table for each example", () => {
    expect(suggestPatterns(shell("git push origin main"))).toEqual(["git push *"]);
  });
});

describe("examples: subagent permissions", () => {
  const explore = ruleset(`{"*": "deny", "read_file": "allow", "glob": "allow", "grep": "allow"}`, "agent:explore");
  it("an explore agent's deny cannot be weakened by static or runtime rules", () => {
    const open = ruleset(`{"*": "allow"}`);
    const runtime = new Ruleset([{ tool: "shell_exec", pattern: "*", action: "allow", origin: "approval" }]);
    expect(shell("ls", context({ agent: explore, static: open, runtime })).action).toBe("deny");
  });
  it("static rules tighten an agent allow (deny .env although read_file is allowed)", () => {
    expect(decide("read_file", { path: ".env" }, context({ agent: explore })).action).toBe("deny");
  });
  it("a runtime always-approve loosens an ask inside the subagent session", () => {
    const general = ruleset(`{"*": "ask"}`, "agent:general");
    const runtime = new Ruleset([{ tool: "shell_exec", pattern: "make *", action: "allow", origin: "approval" }]);
    expect(shell("make test", context({ agent: general, runtime })).action).toBe("allow");
  });
});

describe("examples: tiers, modes and safety overrides", () => {
  it("maps the seed's modes onto ours: always-ask ~ default, write ~ accept-edits, yolo ~ yolo", () => {
    expect(applyMode("ask", "read", "default", null).action).toBe("ask");
    expect(applyMode("ask", "write", "accept-edits", null).action).toBe("allow");
    expect(applyMode("ask", "exec", "accept-edits", null).action).toBe("ask");
    expect(applyMode("ask", "exec", "yolo", null).action).toBe("allow");
  });

  it("treats tools without a declaration as exec", () => {
    expect(decide("mcp__filesystem__delete", {}).tier).toBe("exec");
  });

  it("a critical pattern forces a prompt in non-yolo modes even when the rules allow", () => {
    const open = context({ static: ruleset(`{"*": "allow"}`) }, { mode: "accept-edits" });
    const d = shell("rm -rf /", open);
    expect(d.action).toBe("ask");
    expect(d.reason).toMatch(/critical: rm -r on \/ or the home directory/);
  });

  it("user policy deny is honoured in every mode (deny is never changed)", () => {
    const r = ruleset(`{"*": "allow", "mcp__filesystem__delete": "deny"}`);
    for (const mode of ["default", "accept-edits", "yolo"] as const) {
      expect(decide("mcp__filesystem__delete", {}, context({ static: r }, { mode })).action).toBe("deny");
    }
  });
});
