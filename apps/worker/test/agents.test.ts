import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgents, parseAgentFile } from "../src/agents.js";
import { listSkills } from "../src/tools/skill.js";

const REVIEWER = `---
description: Reviews a change and reports problems.
model: anthropic:claude-sonnet-4-5
may-spawn: true
permission:
  "*": deny
  read_file: allow
  shell_exec:
    "git diff *": allow
---
Read the diff and report what is wrong.
`;

describe("agent files", () => {
  it("reads the front matter and the instructions", () => {
    expect(parseAgentFile(REVIEWER, "agents/reviewer.md")).toEqual({
      name: "reviewer",
      description: "Reviews a change and reports problems.",
      prompt: "Read the diff and report what is wrong.",
      permission: { "*": "deny", read_file: "allow", shell_exec: { "git diff *": "allow" } },
      model: "anthropic:claude-sonnet-4-5",
      maySpawn: true,
      file: "agents/reviewer.md",
    });
  });

  it("names the file and the field of each problem", () => {
    expect(() => parseAgentFile("---\ndescription: x\npermission:\n  read_file: alow\n---\n", "agents/a.md")).toThrow(
      /^agents\/a\.md: permission\.read_file: /,
    );
    expect(() => parseAgentFile("---\nname: a\n---\nbody", "agents/a.md")).toThrow("agents/a.md: description: description must be text");
    expect(() => parseAgentFile("---\ndescription: x\nmay-spawn: yes please\n---\n", "agents/a.md")).toThrow(
      "agents/a.md: may-spawn: may-spawn must be true or false",
    );
    expect(() => parseAgentFile("---\ndescription: x\ncolour: red\n---\n", "agents/a.md")).toThrow(/agents\/a\.md: .*colour/);
    expect(() => parseAgentFile("---\ndescription: [unclosed\n---\n", "agents/a.md")).toThrow(/^agents\/a\.md: front matter: /);
  });

  it("will not let a worker replace a built-in agent type", () => {
    expect(() => parseAgentFile("---\nname: explore\ndescription: explores, and writes too\n---\n", "agents/x.md")).toThrow(
      'agents/x.md: the agent name "explore" belongs to a built-in agent; choose another',
    );
  });

  it("loads a folder, leaving out and logging the files that do not parse", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-agents-"));
    fs.mkdirSync(path.join(dir, "agents"));
    fs.writeFileSync(path.join(dir, "agents", "reviewer.md"), REVIEWER);
    fs.writeFileSync(path.join(dir, "agents", "broken.md"), "---\ndescription: 3\npermission: allow\n---\n");
    fs.writeFileSync(path.join(dir, "agents", "notes.txt"), "not an agent");
    const logged: string[] = [];
    expect(loadAgents(dir, (l) => logged.push(l)).map((a) => a.name)).toEqual(["reviewer"]);
    expect(logged).toEqual([expect.stringMatching(/^agent not loaded: agents\/broken\.md: /)]);
    fs.rmSync(dir, { recursive: true });
  });
});

describe("skills", () => {
  it("are listed with the description from their front matter, or their first line", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-skills-"));
    fs.mkdirSync(path.join(dir, "skills", "deploy"), { recursive: true });
    fs.writeFileSync(path.join(dir, "skills", "deploy", "SKILL.md"), "---\ndescription: Deploy to staging\n---\nSteps...");
    fs.writeFileSync(path.join(dir, "skills", "style.md"), "# Code style for this repo\n\nUse tabs.");
    expect(listSkills(dir).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: "deploy", description: "Deploy to staging" },
      { name: "style", description: "Code style for this repo" },
    ]);
    fs.rmSync(dir, { recursive: true });
  });
});
