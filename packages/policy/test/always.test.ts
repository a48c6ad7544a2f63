import { describe, expect, it } from "vitest";
import { commandPattern, loadShellParser, overbroadPattern, suggestPatterns } from "../src/index.js";
import { context, decide, ruleset, shell } from "./helpers.js";

await loadShellParser();

describe("always patterns", () => {
  it.each([
    ["git push origin main", "git push *"],
    ["npm run build", "npm run build"],
    ["cat README.md", "cat *"],
    ["git status", "git status"],
    ["npm run build --watch", "npm run build *"],
    ["docker compose up -d", "docker compose up *"],
    ["ls", "ls"],
    ["git -C repo push origin", "git -C repo push *"],
  ])("%s -> %s", (cmd, pattern) => {
    expect(commandPattern(cmd.split(" "))).toBe(pattern);
  });

  it("stores one pattern per sub-command that asked", () => {
    expect(suggestPatterns(shell("git push origin main && npm run build | tee log.txt"))).toEqual(["git push *", "npm run build", "tee *"]);
  });

  it("gives a wrapper its name and *, and a privilege wrapper its inner prefix", () => {
    expect(suggestPatterns(shell("timeout 5 npm test"))).toEqual(["timeout 5 npm test", "npm test"]);
    expect(suggestPatterns(shell("sudo apt-get install x"))).toEqual(["sudo apt-get *", "apt-get *"]);
    expect(suggestPatterns(shell("sudo -u root systemctl restart nginx"))).toEqual(["sudo -u root systemctl restart *", "systemctl restart *"]);
  });

  it("suggests nothing for sub-commands that did not ask", () => {
    expect(suggestPatterns(shell("cat .env; ls"))).toEqual(["ls"]);
  });

  it("never offers a pattern that matches everything, and escapes globs that came from the command", () => {
    for (const p of ["*", "**", " * ", "/**", "sudo *", "bash * *", "xargs *", "* foo", "env *"]) expect(overbroadPattern(p), p).not.toBeNull();
    for (const p of ["git push *", "sudo apt-get *", "src/*.ts", "npm test"]) expect(overbroadPattern(p), p).toBeNull();
    expect(suggestPatterns(shell("ls *.md"))).toEqual(["ls *"]);
    expect(suggestPatterns(shell("echo '[a]*'"))).toEqual(["echo *"]);
    expect(suggestPatterns(shell("./build[1].sh"))).toEqual(["./build\\[1\\].sh"]);
    expect(suggestPatterns(decide("write_file", { path: "notes/*.md" }))).toEqual(["notes/\\*.md"]);
  });

  it("offers nothing for a critical call", () => {
    expect(suggestPatterns(shell("rm -rf /"))).toEqual([]);
  });

  it("suggests the path for file tools", () => {
    expect(suggestPatterns(decide("skill", { name: "deploy" }))).toEqual(["deploy"]);
  });

  describe("a command the rules allow that asks all the same", () => {
    const ALLOWED = context({
      static: ruleset(
        `{ "*": "ask", "read_file": "allow", "write_file": { "*": "allow" }, "shell_exec": { "*": "ask", "node *": "allow", "npm test *": "allow", "git log *": "allow" } }`,
      ),
    });

    it.each(["FOO=bar node x.js", "node -e 'console.log(1)'", "npm test > /tmp/test.log"])(
      "%j is offered no pattern: the one it would save is already allowed, and the next call would ask again",
      (command) => {
        const d = shell(command, ALLOWED);
        expect(d.action, d.reason).toBe("ask");
        expect(suggestPatterns(d)).toEqual([]);
      },
    );

    it("the other sub-commands of the line keep theirs", () => {
      expect(suggestPatterns(shell("FOO=bar node x.js && git blame x.ts", ALLOWED))).toEqual(["git blame *"]);
    });

    it("a command the rules ask about keeps its pattern, though more asks behind it", () => {
      expect(suggestPatterns(shell("FOO=bar git blame x.ts", ALLOWED))).toEqual(["git blame *"]);
    });
  });
});
