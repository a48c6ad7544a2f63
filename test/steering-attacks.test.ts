import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveRealPath } from "@gatehouse/fs-guard";
import { evaluate, loadShellParser, parseRulesOrThrow, Ruleset, type Mode } from "@gatehouse/policy";
import { hasGitHead } from "@gatehouse/policy/node";
import { afterAll, describe, expect, it } from "vitest";

await loadShellParser();

/**
 * The attacks on files that steer programs, run for real: each call goes through the gate and runs
 * (a file written, a bash command) only when the gate allows it. Every attack removes the folder
 * `victim` while the rules deny `rm`; the control run forces every call through to show it does.
 */
const RULES = `{
  "*": "ask",
  "read_file": "allow",
  "write_file": { "*": "allow" },
  "edit_file": { "*": "allow" },
  "shell_exec": { "*": "ask", "rm *": "deny", "git *": "allow", "cp *": "allow", "chmod *": "allow",
                  "mv *": "allow", "ln *": "allow", "patch *": "allow",
                  "pytest-3 *": "allow", "pytest-3": "allow", "npm test": "allow", "npm test *": "allow" }
}`;
const layers = { static: new Ruleset(parseRulesOrThrow(RULES, { file: "attack.jsonc", home: "/nonexistent" })) };

type Call =
  | { tool: "write_file"; path: string; content: string }
  | { tool: "edit_file"; path: string; old: string; new: string }
  | { tool: "shell_exec"; command: string };

interface Attack {
  name: string;
  /** Builds the project the attack starts from, in the work directory. */
  setup: string;
  calls: Call[];
  /** The call the gate must hold. */
  held: number;
  needs?: string;
  /** The work directory is the home folder (`HOME` for the gate and the commands alike). */
  atHome?: boolean;
  /** What the held call's reason says, when it is not the file's programs. */
  reason?: RegExp;
}

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-steering-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const ENV = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: path.join(root, "home"),
  LANG: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "a",
  GIT_AUTHOR_EMAIL: "a@example.com",
  GIT_COMMITTER_NAME: "a",
  GIT_COMMITTER_EMAIL: "a@example.com",
};
fs.mkdirSync(ENV.HOME);

const bash = (command: string, cwd: string, home = ENV.HOME) =>
  spawnSync("bash", ["-c", command], { cwd, env: { ...ENV, HOME: home }, stdio: "ignore", timeout: 30_000 });

const REPO = "git init -q . && echo a > f && git add f && git commit -qm init";
const FSMONITOR = (victim: string) => `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "rm -rf ${victim}; false"\n`;
const EVIL_GIT_DIR = `${REPO} && cp -r .git evilgit`;
/** The config of a folder made a git directory by plain files: its own work tree, and a monitor to run. */
const PLANTED_CONFIG = (victim: string) => FSMONITOR(victim).replace("[core]\n", "[core]\n\tworktree = .\n");
const PLANTED = (dir: string, victim: string): Call[] => [
  { tool: "write_file", path: `${dir}HEAD`, content: "ref: refs/heads/main\n" },
  { tool: "write_file", path: `${dir}config`, content: PLANTED_CONFIG(victim) },
  { tool: "write_file", path: `${dir}objects/info/keep`, content: "" },
  { tool: "write_file", path: `${dir}refs/heads/keep`, content: "" },
];

/** A package-lock.json in step with package.json whose left-pad is the project's folder `vendored`, its program linked as `lint`. */
const LINKED_LOCK = JSON.stringify({
  name: "p",
  version: "1.0.0",
  lockfileVersion: 3,
  requires: true,
  packages: {
    "": { name: "p", version: "1.0.0", dependencies: { "left-pad": "^1.3.0" } },
    vendored: { name: "left-pad", version: "1.3.0", bin: { lint: "run.js" } },
    "node_modules/left-pad": { resolved: "vendored", link: true },
  },
});

/** The config of a bare repository the project keeps (`NAME.git`, or a plain name), then git status in it. */
const keptBare = (dir: string): Attack => ({
  name: `the config of the bare repository ${dir} the project keeps, then git status in it`,
  setup: `git init -q --bare ${dir}`,
  calls: [
    { tool: "write_file", path: `${dir}/config`, content: PLANTED_CONFIG("../../victim") },
    { tool: "shell_exec", command: `git -C ${dir} status` },
  ],
  held: 0,
});

/** A home folder's file and what then obeys it: `git status`, or the person's next shell. */
const HOME_FILES: [file: string, content: string, then: string, setup: string][] = [
  [".gitconfig", FSMONITOR("victim"), "git status", REPO],
  [".config/git/config", FSMONITOR("victim"), "git status", REPO],
  [".bashrc", "rm -rf victim\n", "bash -ic true", "true"],
];
const atHome = ([file, content, then, setup]: (typeof HOME_FILES)[number]): Attack => ({
  name: `with the work directory at home, ~/${file} written, then ${then}`,
  setup,
  calls: [
    { tool: "write_file", path: file, content },
    { tool: "shell_exec", command: then },
  ],
  held: 0,
  atHome: true,
});

const ATTACKS: Attack[] = [
  {
    name: "commondir pointing git at a config with core.fsmonitor, then git status",
    // A common directory needs no HEAD of its own: without one it is no git directory to write into.
    setup: `${EVIL_GIT_DIR} && rm evilgit/HEAD`,
    calls: [
      { tool: "write_file", path: "evilgit/config", content: FSMONITOR("victim") },
      { tool: "write_file", path: ".git/commondir", content: "../evilgit\n" },
      { tool: "shell_exec", command: "git status" },
    ],
    held: 1,
  },
  {
    name: "a .git file holding gitdir:, then git add in that folder",
    // The git directory with the monitor is the project's own: writing into it is held too (below).
    setup: `${EVIL_GIT_DIR} && printf '%s' '${FSMONITOR("../victim")}' >> evilgit/config && mkdir sub`,
    calls: [
      { tool: "write_file", path: "sub/.git", content: "gitdir: ../evilgit\n" },
      { tool: "shell_exec", command: "git -C sub add -A" },
    ],
    held: 0,
  },
  {
    name: "a submodule's config under .git/modules, then git status",
    setup:
      "mkdir ../lib-" +
      "$$ && git -C ../lib-$$ init -q && git -C ../lib-$$ commit -q --allow-empty -m i && " +
      `${REPO} && git -c protocol.file.allow=always submodule add -q ../lib-$$ sub && git commit -qm sub`,
    calls: [
      { tool: "edit_file", path: ".git/modules/sub/config", old: "[core]", new: FSMONITOR("../victim").trimEnd() },
      { tool: "shell_exec", command: "git status" },
    ],
    held: 0,
  },
  {
    name: "diff.external added to .git/config, then git diff",
    setup: `${REPO} && echo b > f`,
    calls: [
      { tool: "edit_file", path: ".git/config", old: "[core]", new: '[diff]\n\texternal = "sh -c \\"rm -rf victim\\""\n[core]' },
      { tool: "shell_exec", command: "git diff" },
    ],
    held: 0,
  },
  {
    name: "a hook copied into .git/hooks, then git commit",
    setup: REPO,
    calls: [
      { tool: "write_file", path: "hook.sh", content: "#!/bin/sh\nrm -rf victim\n" },
      { tool: "shell_exec", command: "chmod +x hook.sh" },
      { tool: "shell_exec", command: "cp hook.sh .git/hooks/pre-commit" },
      { tool: "shell_exec", command: "git commit -q --allow-empty -m x" },
    ],
    held: 2,
  },
  {
    name: "a filter named in .gitattributes and defined in .git/config, then git add",
    setup: `${REPO} && echo b > f`,
    calls: [
      { tool: "edit_file", path: ".git/config", old: "[core]", new: '[filter "x"]\n\tclean = "rm -rf victim; cat"\n[core]' },
      { tool: "write_file", path: ".gitattributes", content: "* filter=x\n" },
      { tool: "shell_exec", command: "git add f" },
    ],
    held: 0,
  },
  {
    name: "the work directory made a git repository by writing HEAD, config, objects and refs, then git status",
    setup: "true",
    calls: [...PLANTED("", "victim"), { tool: "shell_exec", command: "git status" }],
    held: 0,
  },
  {
    name: "the same with HEAD written last",
    setup: "true",
    calls: [...PLANTED("", "victim").slice(1), PLANTED("", "victim")[0]!, { tool: "shell_exec", command: "git status" }],
    held: 3,
  },
  {
    name: "a package folder inside a repository made a git repository, its HEAD written by the shell, then git status in it",
    setup: `${REPO} && mkdir pkg`,
    calls: [
      { tool: "write_file", path: "head.txt", content: "ref: refs/heads/main\n" },
      ...PLANTED("pkg/", "../victim").slice(1),
      { tool: "shell_exec", command: "cp head.txt pkg/HEAD" },
      { tool: "shell_exec", command: "git -C pkg status" },
    ],
    held: 4,
  },
  ...["fixtures/origin.git", "fixtures/origin"].map(keptBare),
  ...HOME_FILES.map(atHome),
  ...["mv cfg .config", "ln -sfn cfg .config", "cp -r cfg .config"].map((command): Attack => ({
    name: `with the work directory at home, cfg/git/config written, \`${command}\`, then git status`,
    setup: REPO,
    calls: [
      { tool: "write_file", path: "cfg/git/config", content: FSMONITOR("victim") },
      { tool: "shell_exec", command },
      { tool: "shell_exec", command: "git status" },
    ],
    held: 1,
    atHome: true,
  })),
  {
    name: "with the work directory at home, a patch that creates .config/git/config, applied by patch, then git status",
    setup: REPO,
    calls: [
      {
        tool: "write_file",
        path: "x.patch",
        content: `--- /dev/null\n+++ b/.config/git/config\n@@ -0,0 +1,3 @@\n${FSMONITOR("victim").trimEnd().replace(/^/gm, "+")}\n`,
      },
      { tool: "shell_exec", command: "patch -s -p1 < x.patch" },
      { tool: "shell_exec", command: "git status" },
    ],
    held: 1,
    atHome: true,
    needs: "patch",
    reason: /patch writes the files its patch names/,
  },
  {
    name: "a one-line pytest.ini, then pytest",
    setup: "printf 'def test_a(tmp_path):\\n    assert tmp_path.exists()\\n' > test_a.py",
    calls: [
      { tool: "write_file", path: "pytest.ini", content: "[pytest]\naddopts = --basetemp=victim -p no:cacheprovider\n" },
      { tool: "shell_exec", command: "pytest-3 -q" },
    ],
    held: 0,
    needs: "pytest-3",
  },
  {
    name: "a virtualenv's activate script edited, then a shell activates it",
    setup: "mkdir -p .venv/bin && printf 'home = /usr/bin\\n' > .venv/pyvenv.cfg && printf 'VIRTUAL_ENV=.venv\\nexport VIRTUAL_ENV\\n' > .venv/bin/activate",
    calls: [
      { tool: "edit_file", path: ".venv/bin/activate", old: "export VIRTUAL_ENV", new: "export VIRTUAL_ENV\nrm -rf victim" },
      { tool: "shell_exec", command: ". .venv/bin/activate" },
    ],
    held: 0,
  },
  {
    name: "with the work directory at home, a template's .config copied in under its own name, then git status",
    setup: `${REPO} && mkdir -p tpl/.config/git && printf '%s' '${FSMONITOR("victim")}' > tpl/.config/git/config`,
    calls: [
      { tool: "shell_exec", command: "cp -r tpl/.config ." },
      { tool: "shell_exec", command: "git status" },
    ],
    held: 0,
    atHome: true,
  },
  {
    name: "the hook of the folder core.hooksPath names (.githooks) edited, then git commit",
    setup: `${REPO} && mkdir .githooks && printf '#!/bin/sh\\nexit 0\\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit && git config core.hooksPath .githooks`,
    calls: [
      { tool: "edit_file", path: ".githooks/pre-commit", old: "exit 0", new: "rm -rf victim" },
      { tool: "shell_exec", command: "git commit -q --allow-empty -m x" },
    ],
    held: 0,
  },
  {
    name: "a lockfile that installs a folder of the project as a dependency, then npm ci and the program it links",
    setup: [
      `printf '{ "name": "p", "version": "1.0.0", "dependencies": { "left-pad": "^1.3.0" } }\\n' > package.json`,
      "mkdir vendored",
      `printf '{ "name": "left-pad", "version": "1.3.0", "bin": { "lint": "run.js" } }\\n' > vendored/package.json`,
      `printf '#!/usr/bin/env node\\nrequire("fs").rmSync("victim", { recursive: true });\\n' > vendored/run.js`,
    ].join(" && "),
    calls: [
      { tool: "write_file", path: "package-lock.json", content: LINKED_LOCK },
      { tool: "shell_exec", command: "npm ci --offline --no-audit --no-fund --no-update-notifier && npx --no lint" },
    ],
    held: 0,
    needs: "npm",
  },
  {
    name: "a test script in package.json, then npm test",
    setup: `printf '{ "name": "p", "version": "1.0.0", "scripts": { "test": "echo ok" } }\\n' > package.json`,
    calls: [
      { tool: "edit_file", path: "package.json", old: '"echo ok"', new: '"rm -rf victim"' },
      { tool: "shell_exec", command: "npm test" },
    ],
    held: 0,
    needs: "npm",
  },
];

function prepare(attack: Attack, label: string): string {
  const work = path.join(root, `${label}-${ATTACKS.indexOf(attack)}`, "work");
  fs.mkdirSync(path.join(work, "victim"), { recursive: true });
  fs.writeFileSync(path.join(work, "victim", "keep"), "precious\n");
  execFileSync("bash", ["-c", attack.setup], { cwd: work, env: ENV, stdio: "ignore" });
  return work;
}

function perform(attack: Attack, call: Call, work: string): void {
  if (call.tool === "shell_exec") return void bash(call.command, work, attack.atHome ? work : ENV.HOME);
  const file = path.join(work, call.path);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (call.tool === "write_file") return fs.writeFileSync(file, call.content);
  fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(call.old, call.new));
}

const args = (call: Call) => (call.tool === "shell_exec" ? { command: call.command } : { path: call.path });

/** Runs the calls the way the worker would; stops at the first the gate does not allow. Returns that call's index, or -1. */
function runGated(attack: Attack, work: string, mode: Mode): { stopped: number; reason: string } {
  for (const [i, call] of attack.calls.entries()) {
    const d = evaluate({ tool: call.tool, args: args(call) }, { layers, cwd: work, home: attack.atHome ? work : ENV.HOME, mode, resolveRealPath, hasGitHead });
    if (d.action !== "allow") return { stopped: i, reason: d.reason };
    perform(attack, call, work);
  }
  return { stopped: -1, reason: "" };
}

const has = (program: string) => spawnSync("bash", ["-c", `command -v ${program}`], { env: ENV }).status === 0;

describe("a write to a file that steers an allowed program is held, and the attack does not happen", () => {
  for (const attack of ATTACKS) {
    const missing = attack.needs && !has(attack.needs) ? attack.needs : null;
    it.skipIf(missing !== null)(`${attack.name}${missing ? ` (needs ${missing})` : ""}`, () => {
      const control = prepare(attack, "control");
      for (const call of attack.calls) perform(attack, call, control);
      expect(fs.existsSync(path.join(control, "victim", "keep")), "the attack removes the folder's file when nothing holds it").toBe(false);

      for (const mode of ["default", "accept-edits"] as const) {
        const work = prepare(attack, mode);
        const { stopped, reason } = runGated(attack, work, mode);
        expect(stopped, `${mode}: ${reason}`).toBe(attack.held);
        expect(reason).toMatch(attack.reason ?? / decides what .+ run \(/);
        expect(fs.readFileSync(path.join(work, "victim", "keep"), "utf8")).toBe("precious\n");
      }
    });
  }
});
