import { describe, expect, it } from "vitest";
import { loadShellParser, type Rule } from "../src/index.js";
import { Ruleset } from "../src/ruleset.js";
import { context, CWD, decide, ruleset, shell } from "./helpers.js";

await loadShellParser();

describe("the default rules", () => {
  it.each([
    ["read_file", { path: "src/index.ts" }, "allow"],
    ["read_file", { path: ".env" }, "deny"],
    ["read_file", { path: "config/.env" }, "deny"],
    ["read_file", { path: ".env.production" }, "deny"],
    ["read_file", { path: ".env.example" }, "allow"],
    ["read_file", { file_path: "aws/credentials" }, "deny"],
    ["read_file", { path: "secrets/db.json" }, "deny"],
    ["write_file", { path: "notes.md" }, "allow"],
    ["write_file", { path: ".env" }, "deny"],
    ["edit_file", { path: "a/b/.env.local" }, "deny"],
    ["glob", { pattern: "**/*.ts" }, "allow"],
    ["grep", { path: "src" }, "allow"],
    ["skill", { name: "deploy" }, "ask"],
    ["shell_exec", { command: "ls" }, "ask"],
    ["filesystem_read_file", {}, "ask"],
    ["anything_else", { x: 1 }, "ask"],
  ])("%s %j -> %s", (tool, args, action) => {
    expect(decide(tool, args).action).toBe(action);
  });

  it("lets a later rule override an earlier one: .env.example after *.env", () => {
    const d = decide("read_file", { path: "app/.env.example" });
    expect(d.action).toBe("allow");
    expect(d.rule).toMatchObject({ pattern: "*.env.example", line: 18, layer: "static" });
  });
});

describe("the default rules and the credential stores in the home directory", () => {
  it.each([
    "~/.ssh/id_rsa",
    "~/.ssh/config",
    "$HOME/.ssh/id_ed25519",
    "/home/ada/.gnupg/private-keys-v1.d/A1.key",
    "~/.config/gh/hosts.yml",
    "~/.netrc",
    "~/.npmrc",
    "~/.yarnrc.yml",
    "~/.pypirc",
    "~/.docker/config.json",
    "~/.kube/config",
    "~/.aws/config",
    "~/.aws/sso/cache/token.json",
    "~/.config/gcloud/access_tokens.db",
    "~/.azure/msal_token_cache.json",
    "~/.git-credentials",
    "~/.password-store/github.gpg",
    "~/snap/brave/common/.config/BraveSoftware/Brave-Browser/Default/Cookies",
    "~/.var/app/com.microsoft.Edge/config/microsoft-edge/Default/Login Data",
    "~/.config/google-chrome-beta/Default/Session Storage/000003.log",
    "~/.thunderbird/abc.default-release/logins.json",
    "~/.librewolf/abc.default/cookies.sqlite",
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/ssh/ssh_host_ed25519_key",
    "/etc/ssh/ssh_host_rsa_key",
  ])("read_file %s is denied, and so is cat of it", (file) => {
    expect(decide("read_file", { path: file }).action).toBe("deny");
    expect(shell(`cat ${file}`).action).toBe("deny");
  });

  it.each([
    "~/.gitconfig",
    "~/.config/git/ignore",
    "~/.bashrc",
    ".npmrc",
    "docs/ssh/config",
    "~/.ssh.md",
    "~/projects/app/.docker/config.json",
    "/etc/passwd",
    "/etc/shadow.md",
  ])("read_file %s stays allowed", (file) => {
    expect(decide("read_file", { path: file }).action).toBe("allow");
  });

  it.each(["client.token", "deploy/bot.token", "~/.config/app/api.token"])("a token file %s is denied to read, and to cat", (file) => {
    expect(decide("read_file", { path: file }).action).toBe("deny");
    expect(shell(`cat ${file}`).action).toBe("deny");
  });

  it.each(["src/tokens.ts", "src/lexer/token.ts", "docs/token.md", "test/token.test.ts"])("read_file %s stays allowed", (file) => {
    expect(decide("read_file", { path: file }).action).toBe("allow");
  });
});

describe("readers of folders that hold a denied credential store", () => {
  const readers = ruleset(
    `{ "*": "ask", "read_file": { "*": "allow", "~/.ssh/*": "deny", "~/.netrc": "deny" }, "shell_exec": { "grep *": "allow", "ls *": "allow", "cd *": "allow" } }`,
  );
  const inHome = context({ static: readers }, { cwd: "/home/ada/project" });
  const elsewhere = context({ static: readers });

  it.each([
    ["grep -r KEY .", "allow"],
    ["grep -r KEY src", "allow"],
    ["cd src && grep -r KEY .", "allow"],
    ["grep -r KEY ..", "ask"],
    ["grep -r KEY ../.ssh", "ask"],
    ["cd .. && grep -r KEY .", "ask"],
    ["cd src; cd ../..; grep -r KEY .", "ask"],
    ["grep -r KEY ~", "ask"],
    ["ls ~/.ssh", "ask"],
    ["ls ..", "allow"],
  ])("from a work directory inside the home: %s -> %s", (command, action) => {
    expect(shell(command, inHome).action).toBe(action);
  });

  it.each([
    ["grep -r KEY .", "allow"],
    ["grep -r KEY /home", "ask"],
    ["cd /home/ada && grep -r KEY .", "ask"],
    ["ls /home/ada/.ssh", "ask"],
  ])("from a work directory outside it: %s -> %s", (command, action) => {
    expect(shell(command, elsewhere).action).toBe(action);
  });
});

describe("matching", () => {
  it('a final top-level "*": "allow" opens everything, deny rules included', () => {
    const open = ruleset(`{"read_file": {"*": "allow", "*.env": "deny"}, "*": "allow"}`);
    expect(decide("read_file", { path: ".env" }, context({ static: open })).action).toBe("allow");
  });

  it('"tool": "action" equals { "*": "action" }', () => {
    const a = ruleset(`{"*": "deny", "my_tool": "allow"}`);
    expect(decide("my_tool", {}, context({ static: a })).action).toBe("allow");
    expect(decide("other", {}, context({ static: a })).action).toBe("deny");
  });

  it("matches MCP tools and unknown tools by name only", () => {
    const r = ruleset(`{"*": "ask", "filesystem_read_file": "allow", "github_create_issue": {"github_*": "deny", "other": "allow"}}`);
    expect(decide("filesystem_read_file", { path: ".env" }, context({ static: r })).action).toBe("allow");
    expect(decide("github_create_issue", { title: "other" }, context({ static: r })).action).toBe("deny");
  });

  it("defaults to ask when no rule matches", () => {
    const d = decide("read_file", { path: "a" }, context({ static: Ruleset.empty }));
    expect(d).toMatchObject({ action: "ask", rule: null });
    expect(d.reason).toMatch(/no rule matches/);
  });

  it('"P *" also matches P alone', () => {
    const r = ruleset(`{"shell_exec": {"*": "ask", "git push *": "deny", "npm test *": "allow"}}`);
    expect(shell("git push", context({ static: r })).action).toBe("deny");
    expect(shell("npm test", context({ static: r })).action).toBe("allow");
    expect(shell("npm testing", context({ static: r })).action).toBe("ask");
  });
});

describe("paths (docs/design.md: what a pattern is matched against)", () => {
  const r = ruleset(`{"read_file": {"*": "allow", "*secret*": "deny", "/etc/*": "deny", "build/**": "deny", ".npmrc": "deny"}}`);
  const ctx = context({ static: r });
  it.each([
    ["./a/../b.txt", "allow", "b.txt"],
    ["a//b///c.txt/", "allow", "a/b/c.txt"],
    ["/work/project/build/x.js", "deny", "build/x.js"],
    ["build/../build/x.js", "deny", "build/x.js"],
    ["src/secret/key.pem", "deny", "src/secret/key.pem"],
    ["/etc/hosts", "deny", "/etc/hosts"],
    ["../../etc/hosts", "deny", "/etc/hosts"],
    ["~/.npmrc", "deny", "/home/ada/.npmrc"],
    ["deep/down/.npmrc", "deny", "deep/down/.npmrc"],
  ])("%s -> %s (subject %s)", (p, action, subject) => {
    const d = decide("read_file", { path: p }, ctx);
    expect(d.action).toBe(action);
    expect(d.subject).toBe(subject);
  });

  it("does not let a work directory named secret-project deny every read", () => {
    const inSecret = context({ static: r }, { cwd: "/home/ada/secret-project" });
    expect(decide("read_file", { path: "README.md" }, inSecret).action).toBe("allow");
  });

  it.each(["", "   ", "a\0b"])("never allows the path %j", (p) => {
    expect(decide("read_file", { path: p }, context({ static: ruleset(`{"*": "allow"}`) })).action).toBe("deny");
  });

  it("never allows a call without a path", () => {
    expect(decide("write_file", { content: "x" }, context({ static: ruleset(`{"*": "allow"}`) })).action).toBe("deny");
  });

  it("re-checks the real path: a symlink to .env is denied", () => {
    const real = (p: string) => (p === `${CWD}/notes.txt` ? `${CWD}/.env` : p);
    const d = decide("read_file", { path: "notes.txt" }, context({}, { resolveRealPath: real }));
    expect(d.action).toBe("deny");
    expect(d.reason).toMatch(/resolves to \/work\/project\/\.env/);
  });

  it("a link to a file that steers a program makes the write exec-tier: accept-edits does not let it through on the link's name", () => {
    const real = (p: string) => (p === `${CWD}/settings.ini` ? `${CWD}/.git/config` : p);
    const rules = ruleset(`{"*": "ask", "edit_file": "ask"}`);
    const edit = { path: "settings.ini", old_string: "a", new_string: "b" };
    expect(decide("edit_file", edit, context({ static: rules }, { mode: "accept-edits" })).action).toBe("allow");
    const d = decide("edit_file", edit, context({ static: rules }, { mode: "accept-edits", resolveRealPath: real }));
    expect(d).toMatchObject({ action: "ask", tier: "exec" });
    expect(d.reason).toMatch(/settings\.ini resolves to \/work\/project\/\.git\/config/);
  });
});

describe("layers (docs/design.md: layers)", () => {
  const explore = ruleset(`{"*": "deny", "read_file": "allow", "glob": "allow", "grep": "allow"}`, "agent:explore");
  const open = ruleset(`{"*": "allow"}`);

  it("the agent's deny is a veto no static or runtime rule can lift", () => {
    const runtime = new Ruleset([{ tool: "write_file", pattern: "*", action: "allow", origin: "approval" }]);
    const d = decide("write_file", { path: "a.txt" }, context({ agent: explore, static: open, runtime }));
    expect(d.action).toBe("deny");
    expect(d.layer).toBe("agent");
    expect(d.reason).toMatch(/veto/);
  });

  it("static rules tighten an agent allow", () => {
    expect(decide("read_file", { path: ".env" }, context({ agent: explore })).action).toBe("deny");
  });

  it("an agent's limit rules only narrow: an allow loosens nothing, an ask tightens an allow, a deny is a veto", () => {
    const limits = (text: string) => new Ruleset(ruleset(text, "agents/x.md").rules.map((r) => ({ ...r, origin: "limit" as const })));
    const widening = limits(`{"*": "allow"}`);
    const noCatchAll = ruleset(`{"read_file": "allow", "write_file": "deny"}`);
    expect(shell("make build", context({ agent: widening, static: noCatchAll })).action).toBe("ask");
    expect(decide("write_file", { path: "a.txt" }, context({ agent: widening, static: noCatchAll })).action).toBe("deny");
    const careful = limits(`{"*": "deny", "read_file": "ask", "glob": "allow"}`);
    const d = decide("read_file", { path: "a.txt" }, context({ agent: careful, static: open }));
    expect(d).toMatchObject({ action: "ask", layer: "agent" });
    expect(d.reason).toMatch(/the agent's limit/);
    expect(decide("glob", { pattern: "*" }, context({ agent: careful, static: open })).action).toBe("allow");
    expect(shell("ls", context({ agent: careful, static: open })).reason).toMatch(/veto/);
  });

  it("runtime rules loosen an ask", () => {
    const runtime = new Ruleset([{ tool: "shell_exec", pattern: "git status", action: "allow", origin: "approval" }]);
    expect(shell("git status", context({ runtime })).action).toBe("allow");
    expect(shell("git status", context({ runtime })).layer).toBe("runtime");
  });

  it("deny floor: an approval-made allow never overrides a matching deny", () => {
    const runtime = new Ruleset([{ tool: "read_file", pattern: "*", action: "allow", origin: "approval" }]);
    const d = decide("read_file", { path: ".env" }, context({ runtime }));
    expect(d.action).toBe("deny");
    expect(d.reason).toMatch(/deny floor/);
    const fromFile = ruleset(`{"read_file": {"*.env": "deny", "*": "allow" // approved\n}}`);
    expect(decide("read_file", { path: ".env" }, context({ static: fromFile })).action).toBe("deny");
  });

  it("a person's own final allow still wins (plain last match)", () => {
    const fromFile = ruleset(`{"read_file": {"*.env": "deny", "*": "allow"}}`);
    expect(decide("read_file", { path: ".env" }, context({ static: fromFile })).action).toBe("allow");
  });

  it("protected paths are never written, whatever the rules say", () => {
    const ctx = context({ static: open }, { protectedPaths: ["/var/lib/gatehouse"] });
    expect(decide("write_file", { path: "/var/lib/gatehouse/workers/w1/permissions.jsonc" }, ctx).action).toBe("deny");
    expect(decide("edit_file", { path: "/var/lib/gatehouse" }, ctx).action).toBe("deny");
    expect(shell("echo '{}' > /var/lib/gatehouse/workers/w1/permissions.jsonc", ctx).action).toBe("deny");
    expect(shell("rm /var/lib/gatehouse/x", ctx).action).toBe("deny");
    // Not protected, but outside the work directory under a catch-all: the workspace boundary asks.
    expect(decide("write_file", { path: "/var/lib/gatehouse-other/x" }, ctx).action).toBe("ask");
  });

  it("protected paths are never read either, nor searched by a command given a folder that holds one", () => {
    const ctx = context({ static: open }, { protectedPaths: ["/var/lib/gatehouse", "/etc/gatehouse/config.json"] });
    expect(decide("read_file", { path: "/var/lib/gatehouse/state.db" }, ctx)).toMatchObject({ action: "deny", reason: expect.stringMatching(/no tool reads/) });
    expect(decide("read_file", { path: "/etc/gatehouse/../gatehouse/config.json" }, ctx).action).toBe("deny");
    expect(decide("grep", { path: "/var/lib/gatehouse/workers" }, ctx).action).toBe("deny");
    for (const command of [
      "cat /etc/gatehouse/config.json",
      "head -c 9 /var/lib/gatehouse/state.db",
      "grep -r token /etc",
      "grep -r token /",
      "tar cf x.tar /var/lib",
      "cp -r /var/lib /tmp/x",
    ])
      expect(shell(command, ctx).action, command).toBe("deny");
    // Beside them, and in the work directory, everyday reads are the rules' to decide.
    for (const command of ["cat /etc/gatehouse/README", "grep -r token src", "grep -r token /var/lib/gatehouse-other"])
      expect(shell(command, ctx).action, command).toBe("allow");
    expect(decide("read_file", { path: "src/index.ts" }, ctx).action).toBe("allow");
  });
});

describe("explanations", () => {
  it("carries action, layer, rule with file and line, pattern, subject and reason", () => {
    const d = decide("read_file", { path: "x/.env" });
    expect(d).toMatchObject({
      action: "deny",
      layer: "static",
      pattern: "*.env",
      subject: "x/.env",
      rule: { tool: "read_file", pattern: "*.env", file: "permissions.jsonc", line: 14, column: 5 },
    });
    expect(d.reason).toContain("permissions.jsonc:14:5");
  });

  it("has one entry per shell sub-command", () => {
    const d = shell("ls | wc -l && cat .env");
    expect(d.subcommands.map((s) => [s.subject, s.action])).toEqual([
      ["ls", "ask"],
      ["wc -l", "ask"],
      ["cat .env", "deny"],
    ]);
  });
});

describe("rules as data", () => {
  it("accepts rules built in code", () => {
    const rules: Rule[] = [{ tool: "*", pattern: "*", action: "allow", origin: "person" }];
    expect(decide("x", {}, context({ static: new Ruleset(rules) })).action).toBe("allow");
  });
});

describe("other readings of a command never override a later rule a person wrote", () => {
  const decided = (rules: string, cmd: string) => shell(cmd, context({ static: ruleset(rules) })).action;

  it("lets a final catch-all allow open what an earlier deny named", () => {
    for (const cmd of ["rm --version", "rm -rf build", "/bin/rm x", "sudo rm x", "git -C . push"]) {
      expect(decided(`{"shell_exec": {"rm *": "deny", "git push *": "deny"}, "*": "allow"}`, cmd), cmd).toBe("allow");
    }
  });

  it("asks where a later top-level catch-all asks", () => {
    expect(decided(`{"shell_exec": {"*": "allow", "rm *": "deny"}, "*": "ask"}`, "rm --version")).toBe("ask");
    expect(decided(`{"shell_exec": {"*": "allow", "rm *": "deny"}, "*": "ask"}`, "/bin/rm -rf build")).toBe("ask");
  });

  it("still denies through every reading when the deny comes last", () => {
    const rules = `{"*": "allow", "shell_exec": {"rm *": "deny", "git push *": "deny"}}`;
    for (const cmd of ["rm --version", "/bin/rm -rf build", "git -C . push", "git -c a=b push origin", "sudo rm x", "env rm x"]) {
      expect(decided(rules, cmd), cmd).toBe("deny");
    }
  });

  it("keeps the deny floor: an approval-made allow never opens a reading a person denied", () => {
    const rules = `{"*": "ask", "shell_exec": {"git push *": "deny"}}`;
    const rt = new Ruleset([{ tool: "shell_exec", pattern: "git *", action: "allow", origin: "approval" }]);
    expect(shell("git -C . push", context({ static: ruleset(rules), runtime: rt })).action).toBe("deny");
  });
});

describe("version and help queries", () => {
  const rules = ruleset(`{"*": "ask", "shell_exec": {"pip *": "allow", "cargo *": "allow", "docker *": "allow", "rm *": "allow", "node *": "allow"}}`);
  it.each(["pip --version", "cargo --version", "docker --version", "rm --version", "node --help", "cargo --help"])(
    "%s is allowed by the program's rule",
    (cmd) => {
      expect(shell(cmd, context({ static: rules })).action).toBe("allow");
    },
  );

  it("is no way around a rule: an unknown program or one the rules do not name still asks", () => {
    expect(shell("evil --version", context({ static: rules })).action).toBe("ask");
    expect(shell("git --version", context({ static: rules })).action).toBe("ask");
    expect(shell("pip --version --x", context({ static: rules })).action).toBe("ask");
  });
});

describe("a rule that names a wrapper with its program", () => {
  const rules = ruleset(
    `{"*": "ask", "read_file": "allow", "shell_exec": {"sudo *": "allow", "npx *": "allow", "npx vitest *": "allow", "pnpm exec tsc *": "allow", "sudo apt-get *": "allow"}}`,
  );
  it.each(["npx vitest run", "npx vitest run src/app.test.ts", "pnpm exec tsc --noEmit -p .", "sudo apt-get install -y curl"])(
    "allows the program it names: %s",
    (cmd) => {
      expect(shell(cmd, context({ static: rules })).action).toBe("allow");
    },
  );

  it("is no word for another program, nor for one a later rule denies", () => {
    expect(shell("npx rm x", context({ static: rules })).action).toBe("ask");
    expect(shell("sudo rm x", context({ static: rules })).action).toBe("ask");
    const later = ruleset(`{"*": "ask", "shell_exec": {"sudo apt-get *": "allow", "apt-get *": "deny"}}`);
    expect(shell("sudo apt-get install x", context({ static: later })).action).toBe("deny");
    const earlier = ruleset(`{"*": "ask", "shell_exec": {"apt-get *": "deny", "sudo apt-get *": "allow"}}`);
    expect(shell("sudo apt-get install x", context({ static: earlier })).action).toBe("allow");
  });

  it("made by an approval, never opens what a person denied", () => {
    const made = new Ruleset([{ tool: "shell_exec", pattern: "sudo apt-get *", action: "allow", origin: "approval" }]);
    const denied = ruleset(`{"*": "ask", "shell_exec": {"apt-get *": "deny"}}`);
    expect(shell("sudo apt-get install x", context({ static: denied, runtime: made })).action).toBe("deny");
  });
});
