import { describe, expect, it } from "vitest";
import { loadShellParser } from "../src/index.js";
import { context, ruleset, shell } from "./helpers.js";

await loadShellParser();

// The default rules' file entries, and sed allowed by a rule naming it.
const SED = ruleset(`{
  "*": "ask",
  "read_file": { "*": "allow", "*.env": "deny" },
  "write_file": { "*": "allow", "*.env": "deny" },
  "shell_exec": { "*": "ask", "sed *": "allow" }
}`);
const ctx = context({ static: SED });

describe("sed -i: the files it edits, and their backups, are checked as writes", () => {
  it.each([
    "sed -i 's/Gatehouse/Gatehouse!/' README.md",
    "sed -i -e s/a/b/ -e s/c/d/ src/a.ts src/b.ts",
    "sed -i.bak s/a/b/ src/x.ts",
    "sed -ni.orig p notes.md",
    "sed --in-place s/a/b/ docs/a.md",
    "sed --in-place=~ s/a/b/ docs/a.md",
    "sed -E -i 's/(a)/\\1b/' docs/a.md",
  ])("%j is allowed", (command) => {
    const d = shell(command, ctx);
    expect(d.action, d.reason).toBe("allow");
  });

  it("the edited file is a write: a denied one is denied", () => {
    const d = shell("sed -i s/a/b/ config/.env", ctx);
    expect(d.action).toBe("deny");
    expect(d.reason).toContain("config/.env, checked as write_file");
  });

  it("the backup is a write of its own: config plus .env is a denied file", () => {
    const d = shell("sed -i.env s/a/b/ config", ctx);
    expect(d.action).toBe("deny");
    expect(d.reason).toContain("config.env, checked as write_file");
  });

  it("a backup named like a file that steers a program asks, as writing it does", () => {
    const d = shell("sed -i.json s/a/b/ package", ctx);
    expect(d.action).toBe("ask");
    expect(d.reason).toContain("package.json");
  });

  it.each(["sed -i s/a/b/ .git/config", "sed -i s/a/b/ ../outside.txt", "sed -i s/a/b/ Makefile"])("%j asks by its file", (command) => {
    expect(shell(command, ctx).action).toBe("ask");
  });

  it.each(["sed -i'bak/*' s/a/b/ x.txt", "sed --in-place=/tmp/ s/a/b/ x.txt", 'sed -i"$SUFFIX" s/a/b/ x.txt'])(
    "%j asks: its suffix may put the backup anywhere",
    (command) => {
      const d = shell(command, ctx);
      expect(d.action, d.reason).toBe("ask");
      expect(d.reason).toContain("backup");
    },
  );

  it("a script that runs or writes still asks", () => {
    expect(shell("sed -i '1e rm x' notes.md", ctx).action).toBe("ask");
    expect(shell("sed -i 's/a/b/w out.txt' notes.md", ctx).action).toBe("ask");
  });
});
