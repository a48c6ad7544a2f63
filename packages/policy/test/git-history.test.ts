import { describe, expect, it } from "vitest";
import { loadShellParser } from "../src/index.js";
import { context, ruleset, shell } from "./helpers.js";

await loadShellParser();

const GIT = ruleset(`{ "read_file": "allow", "shell_exec": { "*": "ask", "git *": "allow" } }`);
const holding = (held: string | null) => context({ static: GIT }, { deniedInHistory: () => held });

describe("git commands that print what git holds, where its history holds a denied file", () => {
  const PRINTS = [
    "git log -p",
    "git log --patch --all",
    "git log -U3",
    "git whatchanged -p",
    "git show",
    "git show HEAD~1",
    "git show --oneline HEAD",
    "git diff",
    "git diff --cached",
    "git diff HEAD~2",
    "git -C sub -c color.ui=never log -p",
    "git format-patch -1",
    "git archive HEAD",
    "git cat-file -p HEAD",
    "git blame --frobnicate app.ts",
    "git blame HEAD~1 -- app.ts b.ts",
    "git annotate HEAD~1 main app.ts",
    "git stash show -p",
    "git grep KEY HEAD",
    "git grep --cached KEY",
    "git log -p --",
    "git log -p -- src",
    "git log -L1,1:.env HEAD~1",
    "git log -L 1,1:.env",
    "git reflog -p",
    "git reflog show --patch",
    "git range-diff main..a main..b",
    "git diff-files -p",
    "git request-pull -p main . topic",
    "git merge-tree base a b",
    "git unpack-file 1234abcd",
  ];
  it.each(PRINTS)("%j is refused, naming the file", (command) => {
    const d = shell(command, holding("/work/project/.env"));
    expect(d.action, d.reason).toBe("deny");
    expect(d.reason).toContain("which hold /work/project/.env, denied to read_file");
  });

  const PLAIN = [
    "git status",
    "git log --oneline",
    "git log --stat",
    "git show -s HEAD",
    "git show --stat",
    "git show --name-only HEAD",
    "git grep KEY",
    "git stash list",
    "git reflog",
    "git shortlog -sn",
  ];
  it.each(PLAIN)("%j stays allowed", (command) => {
    expect(shell(command, holding("/work/project/.env")).action).toBe("allow");
  });

  const PRINTED_BESIDE_NAMES = [
    "git show --stat -p HEAD",
    "git show --name-only --patch HEAD~1",
    "git show -s 1234abcd",
    "git show --stat v1.0",
    "git show -s HEAD:.env",
    "git show --stat main",
    "git diff --stat --check",
    "git diff --name-only -p HEAD~1",
    "git diff --stat --binary HEAD~1",
    "git diff --stat --output=x.txt",
    "git notes add -C 1234abcd HEAD",
    "git notes append -c1234abcd",
    "git notes add --reuse-message=1234abcd",
    "git symbolic-ref HEAD refs/tags/t",
    "git update-index --add --cacheinfo 100644,1234abcd,notes.txt",
    "git update-index --cacheinfo=100644,1234abcd,notes.txt",
    "git grep -e KEY HEAD~1",
    "git fetch . 1234abcd:refs/replace/5678ef90",
    "git fetch . +1234abcd:refs/replace/5678ef90",
    "git fetch . 'refs/tags/*:refs/*'",
    "git push . 1234abcd:refs/replace/5678ef90",
    "git fetch --refmap=refs/tags/*:refs/replace/* .",
    "git fetch --mirror .",
    "git grep -n KEY v1.0 -- src",
    "git grep -A 3 KEY main",
    "git symbolic-ref -m why HEAD refs/remotes/origin/x",
  ];
  it.each(PRINTED_BESIDE_NAMES)("%j is refused: a patch, a blob or a note may still print a file", (command) => {
    const d = shell(command, holding("/work/project/.env"));
    expect(d.action, d.reason).toBe("deny");
    expect(d.reason).toContain("git's history and index, which hold /work/project/.env, denied to read_file");
  });

  const NAMES_ONLY = [
    "git diff --stat",
    "git diff --name-only HEAD~3",
    "git diff --stat HEAD~1 HEAD -- src",
    "git diff --numstat --cached",
    "git diff --name-status --no-renames main...HEAD",
    "git show --stat HEAD~2",
    "git show --stat --oneline @~1",
    "git show -s --format=%H%n%s",
    "git notes add -m reviewed HEAD",
    "git symbolic-ref HEAD",
    "git symbolic-ref HEAD refs/heads/main",
    "git symbolic-ref -d HEAD",
    "git update-index --refresh",
    "git fetch origin",
    "git fetch origin main:main",
    "git fetch origin refs/heads/main:refs/remotes/origin/main",
    "git pull origin main",
    "git fetch origin v1.0:refs/tags/v1.0",
    "git grep KEY -- src docs",
    "git grep -e KEY -e TOKEN -- src",
    "git grep -A 3 KEY",
    "git grep --max-depth 2 KEY",
    "git update-index --chmod=+x run.sh",
    "git blame app.ts",
    "git blame -L 10,30 README.md",
    "git blame -w HEAD~3 -- src/app.ts",
    "git blame --porcelain -L5,8 --date=short app.ts",
  ];
  it.each(NAMES_ONLY)("%j stays allowed: it prints names, counts or ids, or the one file it names", (command) => {
    const d = shell(command, holding("/work/project/.env"));
    expect(d.action, d.reason).toBe("allow");
  });

  it("git log -p stays allowed where the history holds nothing denied, or nothing is known of it", () => {
    expect(shell("git log -p", holding(null)).action).toBe("allow");
    expect(shell("git log -p", context({ static: GIT })).action).toBe("allow");
  });
});

describe("submodules' history, which the worker does not list", () => {
  it.each(["git log -p --submodule=diff", "git diff --submodule=diff HEAD~1", "git show --submodule=diff HEAD"])(
    "%j asks, naming the submodules",
    (command) => {
      const d = shell(command, holding(null));
      expect(d.action, d.reason).toBe("ask");
      expect(d.reason).toContain("submodules");
    },
  );

  it.each(["git log -p --submodule", "git log -p --submodule=log", "git diff --submodule=short"])(
    "%j stays allowed: it names submodules' commits, not their files",
    (command) => {
      expect(shell(command, holding(null)).action).toBe("allow");
    },
  );
});
