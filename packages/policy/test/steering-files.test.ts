import { describe, expect, it } from "vitest";
import { appendRuleText, DEFAULT_RULES_TEXT, loadShellParser, suggestPatterns } from "../src/index.js";
import { steeringFileOf, STEERING_FILES } from "../src/steering-files.js";
import { context, decide, HOME, ruleset, shell } from "./helpers.js";

await loadShellParser();

/** One file of each kind the catalogue holds, as an agent would name it. */
const STEERING: string[] = [
  ".git/config",
  ".git/commondir",
  ".git/hooks/pre-commit",
  ".git/info/attributes",
  ".git/config.worktree",
  ".git/modules/sub/config",
  ".git/worktrees/w/commondir",
  "vendor/lib/.git/config",
  "sub/.git",
  ".git",
  ".gitattributes",
  "sub/.gitmodules",
  ".husky/pre-commit",
  ".pre-commit-config.yaml",
  "package.json",
  "packages/a/package.json",
  ".npmrc",
  ".yarnrc.yml",
  ".pnpmfile.cjs",
  "bunfig.toml",
  "node_modules/.bin/jest",
  "eslint.config.js",
  ".prettierrc.json",
  "pytest.ini",
  "pyproject.toml",
  "setup.cfg",
  "tox.ini",
  "tests/conftest.py",
  "setup.py",
  "lib/python3.11/site-packages/evil.pth",
  "sitecustomize.py",
  "Makefile",
  "rules.mk",
  "CMakeLists.txt",
  "cmake/x.cmake",
  "build.ninja",
  ".cargo/config.toml",
  "build.rs",
  "rust-toolchain.toml",
  "go.mod",
  "go.work",
  "Gemfile",
  "gradle/wrapper/gradle-wrapper.properties",
  "justfile",
  ".envrc",
  ".vscode/tasks.json",
  "docker-compose.yml",
  "compose.override.yaml",
  ".hg/hgrc",
  "mypy.ini",
  ".pylintrc",
  "requirements-dev.txt",
  "Pipfile",
  "composer.json",
  "flake.nix",
  "infra/main.tf",
  ".bazelrc",
  "Vagrantfile",
  ".devcontainer/devcontainer.json",
  ".stylelintrc.json",
  "agents/reviewer.md",
  "skills/deploy/SKILL.md",
  "HEAD",
  "pkg/HEAD",
  "fixtures/origin.git/config",
  "fixtures/origin.git/hooks/pre-receive",
  "fixtures/origin.git/refs/heads/main",
  ".gitconfig",
  ".config/git/config",
  ".config/git/attributes",
  ".bashrc",
  ".bash_profile",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".bash_logout",
  ".inputrc",
  ".config/fish/config.fish",
  ".ssh/config",
  ".ssh/authorized_keys",
  ".ssh/rc",
  ".vimrc",
  ".config/nvim/init.lua",
  ".tmux.conf",
  ".gdbinit",
  ".psqlrc",
  ".pypirc",
  ".netrc",
  ".curlrc",
  ".hgrc",
  ".docker/config.json",
  ".config/systemd/user/x.service",
  ".local/bin/git",
  ".npm/_npx/3c8a1f/node_modules/mcpdemo/index.js",
  ".npm/_cacache/index-v5/3c/8a/1f",
  ".cache/uv/archive-v0/x1/demo/__init__.py",
  ".cache/pip/wheels/ab/cd/demo-1.0-py3-none-any.whl",
  ".lintstagedrc.json",
  ".lintstagedrc",
  "lint-staged.config.mjs",
  "commitlint.config.ts",
  ".commitlintrc.yml",
  ".huskyrc.json",
  "lefthook.yaml",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "pnpm-lock.yaml",
  "yarn.lock",
  "bun.lock",
  ".pnp.cjs",
  "deno.jsonc",
  ".venv/bin/activate",
  ".venv/bin/pytest",
  "services/api/venv/bin/pip",
  ".venv/pyvenv.cfg",
  "poetry.lock",
  "uv.lock",
  "tox.toml",
  ".flake8",
  "constraints.txt",
  "Cargo.lock",
  "Gemfile.lock",
  "composer.lock",
  "infra/main.tf.json",
  "infra/main.tofu",
  ".terraform.lock.hcl",
  ".terraform/providers/registry.terraform.io/hashicorp/null/3.2.0/linux_amd64/terraform-provider-null",
  "gradle/publish.gradle",
  "buildSrc/src/main/kotlin/conventions.gradle.kts",
  "buildSrc/build.gradle.kts",
  "project/plugins.sbt",
  ".sbtopts",
  "MODULE.bazel",
  "tools/defs.bzl",
  "build/CMakeCache.txt",
  ".rubocop.yml",
  ".golangci.yml",
  "phpstan.neon.dist",
  ".php-cs-fixer.dist.php",
  ".jj/repo/config.toml",
  ".sl/config",
  "opencode.json",
  ".opencode/opencode.jsonc",
  ".mcp.json",
  ".claude/settings.json",
  ".cursor/mcp.json",
  ".gemini/settings.json",
  ".codex/config.toml",
  ".vscode/mcp.json",
  ".lessfilter",
  ".config/tmux/tmux.conf",
  ".cache/pre-commit/repo1a2b/hooks.py",
  ".cargo/bin/cargo",
  ".config/husky/init.sh",
  ".config/go/env",
  ".config/starship.toml",
  ".githooks/pre-commit",
  "lefthook.json",
  ".lefthook-local.yml",
  ".config/lefthook.yml",
  ".pre-commit-config.yml",
  ".simple-git-hooks.json",
  "simple-git-hooks.cjs",
  ".nano-staged.json",
  ".overcommit.yml",
  "deno.lock",
  "flake.lock",
  "vendor/bin/phpunit",
  "Directory.Build.targets",
  "src/App/App.csproj",
  "NuGet.config",
  "packages.lock.json",
  "Package.swift",
  "Package.resolved",
  "pubspec.lock",
  "mix.exs",
  "mix.lock",
  "build.zig",
  "Setup.hs",
  "app.cabal",
  "Makefile.PL",
  "project.clj",
  "Podfile.lock",
  ".github/workflows/ci.yml",
  ".github/workflows/release.yaml",
  ".github/actions/setup/action.yml",
  "action.yml",
  ".gitlab-ci.yml",
  ".gitlab/ci/deploy.yml",
  "Jenkinsfile",
  "ci/deploy.jenkinsfile",
  ".circleci/config.yml",
  "azure-pipelines.yml",
  "bitbucket-pipelines.yml",
  ".buildkite/pipeline.yml",
  ".travis.yml",
  ".drone.yml",
  ".woodpecker/build.yml",
  ".forgejo/workflows/ci.yml",
  ".gitea/workflows/ci.yml",
  "babel.config.js",
  ".babelrc",
  ".markdownlint-cli2.cjs",
  ".remarkrc.mjs",
  ".textlintrc.json",
  ".sqlfluff",
  ".credo.exs",
  ".zed/settings.json",
  ".continue/config.yaml",
  ".kiro/hooks/on-save.kiro.hook",
  ".amazonq/mcp.json",
  ".roo/mcp.json",
  ".aider.conf.yml",
  "crush.json",
  ".ghci",
  ".iex.exs",
  ".ipython/profile_default/startup/00-init.py",
  ".gradle/init.d/repos.gradle",
  ".gnupg/gpg-agent.conf",
  "Tiltfile",
  "Earthfile",
  "Procfile.dev",
  "hatch.toml",
  "pixi.lock",
];

/** Everyday work: source, tests, docs and data files. */
const EVERYDAY: string[] = [
  "src/app.ts",
  "src/git/status.ts",
  "tests/test_app.py",
  "test/app.test.ts",
  "docs/guide.md",
  "README.md",
  "data/config.json",
  "src/agents/planner.ts",
  "package.json.tmp",
  ".github/CODEOWNERS",
  ".github/dependabot.yml",
  ".github/ISSUE_TEMPLATE/bug.md",
  ".github/pull_request_template.md",
  ".gitlab/issue_templates/bug.md",
  "docs/ci.md",
  "src/workflows/deploy.ts",
  "vendor/github.com/pkg/errors/errors.go",
  "vendor/autoload.php",
  "src/bin/cli.ts",
  "src/App/Program.cs",
  "Sources/App/main.swift",
  "lib/app.ex",
  "test/app_test.exs",
  "src/main.zig",
  "yarn-error.log",
  "docs/lockfiles.md",
  "src/actions/login.ts",
  "src/tokens.ts",
  ".markdownlint.yaml",
  ".markdownlint.jsonc",
  "locales/en/global.json",
  "src/components/Button.stories.tsx",
  ".github/FUNDING.yml",
  "lib/pathlib.py",
  "docs/requirements.md",
  "src/main.tfx",
  "config",
  "config/database.yml",
  "src/config/index.ts",
  "app/config.py",
  "refs/index.md",
  "docs/objects/info.md",
  "src/hooks/useThing.ts",
  "info/about.md",
  "packed-refs.md",
  "src/HEADER.md",
  "data/head.txt",
  "docs/bashrc.md",
  "examples/profile.json",
  "src/ssh/config.ts",
  "src/git.ts",
  ".npm/_logs/debug-0.log",
  ".cache/eslint/results.json",
  "src/cache/uv.ts",
  "docs/lockfile.md",
  "src/venv.py",
  "scripts/bin/release.sh",
  "src/claude/client.ts",
  "docs/opencode.md",
  "vendor/lib/util.php",
  "src/terraform/plan.ts",
  "docs/gradle.md",
];

describe("the catalogue of files that steer programs", () => {
  it.each(STEERING)("a write to %s asks under the default rules, naming the programs it steers", (path) => {
    for (const tool of ["write_file", "edit_file"]) {
      const d = decide(tool, { path });
      expect(d.action, d.reason).toBe("ask");
      expect(d.tier).toBe("exec");
      expect(d.reason).toMatch(/ decides what .+ run \(/);
    }
  });

  it.each(STEERING)("accept-edits does not turn the write to %s into an allow", (path) => {
    const d = decide("write_file", { path }, context({}, { mode: "accept-edits" }));
    expect(d.action, d.reason).toBe("ask");
  });

  it.each(EVERYDAY)("a write to %s stays allowed", (path) => {
    expect(decide("write_file", { path }).action).toBe("allow");
    expect(steeringFileOf(`/work/project/${path}`, "/work/project")).toBeNull();
  });

  it("names what each file steers: git status for git's files, pytest for pytest.ini", () => {
    expect(decide("write_file", { path: ".git/commondir" }).reason).toContain("`git status`");
    expect(decide("write_file", { path: "pytest.ini" }).reason).toContain("`pytest`");
    expect(decide("write_file", { path: "package.json" }).reason).toContain("`npm`");
  });

  it("every entry names the programs it steers and at least one file", () => {
    for (const e of STEERING_FILES) {
      expect(e.programs.length, e.ecosystem).toBeGreaterThan(0);
      expect([e.files, e.endings, e.like, e.folders, e.inFolder].some(Boolean), e.ecosystem).toBe(true);
    }
  });

  it("only a rule that spells out the file's name opens it", () => {
    const broad = ruleset(`{ "write_file": { "*": "allow", "**": "allow", "*.json": "allow", ".*/**": "allow" } }`);
    expect(decide("write_file", { path: "package.json" }, context({ runtime: broad })).action).toBe("ask");
    const named = ruleset(`{ "write_file": { "**/package.json": "allow", ".git/hooks/*": "allow", "*.pth": "allow" } }`);
    for (const path of ["package.json", "web/package.json", ".git/hooks/pre-commit", "x.pth"])
      expect(decide("write_file", { path }, context({ runtime: named })).action, path).toBe("allow");
    expect(decide("write_file", { path: ".git/config" }, context({ runtime: named })).action).toBe("ask");
  });

  it("a deny stays a deny", () => {
    const deny = ruleset(`{ "write_file": { "package.json": "deny" } }`);
    expect(decide("write_file", { path: "package.json" }, context({ runtime: deny })).action).toBe("deny");
  });

  it("a change to package.json asks once: the always pattern is the path, and the rule it saves opens it", () => {
    const d = decide("edit_file", { path: "package.json", old_string: '"a": "1"', new_string: '"a": "2"' });
    expect(d.action).toBe("ask");
    expect(suggestPatterns(d)).toEqual(["package.json"]);
    const saved = appendRuleText(DEFAULT_RULES_TEXT, { tool: "edit_file", pattern: "package.json", note: "by ada" });
    const after = context({ static: ruleset(saved) });
    expect(decide("edit_file", { path: "package.json" }, after).action).toBe("allow");
    expect(decide("edit_file", { path: "pytest.ini" }, after).action).toBe("ask");
  });

  it("a part of a git directory asks in a folder that has a HEAD, and a plain config folder does not", () => {
    const heads = new Set(["/work/project/fixtures/origin", "/work/project/pkg"]);
    const ctx = context({}, { hasGitHead: (folder) => heads.has(folder) });
    for (const path of ["fixtures/origin/config", "fixtures/origin/objects/info/alternates", "pkg/refs/heads/x", "pkg/packed-refs", "pkg/commondir"]) {
      const d = decide("write_file", { path }, ctx);
      expect(d.action, path).toBe("ask");
      expect(d.reason).toMatch(/is part of the git directory \/work\/project\/(fixtures\/origin|pkg), whose config decides what `git status`/);
    }
    for (const path of ["config/database.yml", "config", "src/config.ts", "fixtures/other/config", "pkg/src/config"])
      expect(decide("write_file", { path }, ctx).action, path).toBe("allow");
  });

  it("a HEAD says it would make its folder a git repository", () => {
    expect(decide("write_file", { path: "HEAD" }).reason).toMatch(
      /^\/work\/project\/HEAD would make \/work\/project a git repository, whose config decides what `git status`/,
    );
  });

  it("a home file asks by every spelling of its path, with the work directory at home", () => {
    const ctx = context({}, { cwd: HOME });
    for (const path of [".bashrc", "~/.bashrc", `${HOME}/.bashrc`, "../ada/.bashrc", "~/.gitconfig", "./.config/git/config", "~/.ssh/config"]) {
      const d = decide("write_file", { path }, ctx);
      expect(d.action, path).toBe("ask");
      expect(d.tier).toBe("exec");
    }
  });

  it("a write outside the work directory to a steering file still asks", () => {
    const d = decide("write_file", { path: `${HOME}/other/.git/config` });
    expect(d.action).toBe("ask");
  });
});

/** Shell open to every program these writes use. */
const WRITERS = ruleset(`{
  "read_file": "allow", "write_file": { "*": "allow" },
  "shell_exec": { "*": "ask", "echo *": "allow", "printf *": "allow", "tee *": "allow", "cp *": "allow", "mv *": "allow",
                  "ln *": "allow", "sed *": "allow", "install *": "allow", "dd *": "allow", "git *": "allow", "npm *": "allow",
                  "pnpm *": "allow", "touch *": "allow", "cat *": "allow", "truncate *": "allow", "rsync *": "allow", "rm *": "allow", "mkdir *": "allow",
                  "tar *": "allow", "unzip *": "allow" }
}`);

const SHELL_WRITES: string[] = [
  "echo '../evil' > .git/commondir",
  "printf '[core]\\n\\tfsmonitor = ./evil\\n' >> .git/config",
  "cat evil > .git/modules/sub/config",
  "printf 'gitdir: ../evil' > sub/.git",
  "tee .git/hooks/pre-commit < evil",
  "echo x | tee -a pytest.ini",
  "cp evil .git/hooks/post-checkout",
  "cp -t .git/hooks evil",
  "mv evil package.json",
  "ln -s ../evil .git/commondir",
  "ln -sf evil .husky/pre-commit",
  "sed -i s/a/b/ .git/config",
  "sed -i s/a/b/ pytest.ini",
  "install -m 755 evil .git/hooks/pre-push",
  "dd if=evil of=.git/info/attributes",
  "truncate -s 0 .npmrc",
  "rsync evil .gitattributes",
  "cp -r evil/.git .",
  "cp -t sub evil/.husky",
  "install -m 755 hook .git/hooks/",
  "tar xf evil.tar .git/config",
  "tar -x -f evil.tar -C sub pytest.ini",
  "unzip -o evil.zip .git/hooks/pre-commit",
  "unzip evil.zip -d web package.json",
  "git config core.fsmonitor ./evil",
  "git config --file .git/modules/sub/config core.fsmonitor ./evil",
  "npm pkg set scripts.test='rm -rf x'",
  "pnpm pkg delete scripts.build",
  "printf 'ref: refs/heads/main\\n' > HEAD",
  "cp head.txt pkg/HEAD",
  "ln -s refs/heads/main HEAD",
  "mv head pkg/HEAD",
  "cp -r template/objects evil.git/",
  "echo 'id > x' >> ~/.bashrc",
  "tee -a ~/.gitconfig < evil",
  "cp evil ~/.config/git/config",
  "echo 'ProxyCommand sh x' >> ~/.ssh/config",
  "git config --global core.fsmonitor ./evil",
  "echo 'require(1)' > ~/.npm/_npx/3c8a1f/node_modules/mcpdemo/index.js",
  "cp evil.whl ~/.cache/pip/wheels/ab/demo-1.0-py3-none-any.whl",
  "cat ci.yml > .github/workflows/ci.yml",
  "cp ci.yml .github/workflows/",
  "tee .gitlab-ci.yml < ci.yml",
  "sed -i s/x/y/ Jenkinsfile",
  "cp evil vendor/bin/phpunit",
  "echo 'rm -rf x' >> .githooks/pre-commit",
  "cp lock.json package-lock.json",
];

describe("every way of writing a steering file asks", () => {
  it.each(SHELL_WRITES)("%j", (command) => {
    const d = shell(command, context({ static: WRITERS }));
    expect(d.action, d.reason).toBe("ask");
  });

  it.each(SHELL_WRITES)("%j under accept-edits", (command) => {
    const d = shell(command, context({ static: WRITERS }, { mode: "accept-edits" }));
    expect(d.action, d.reason).toBe("ask");
  });

  it("offers no command pattern for always, since it would not open the file", () => {
    expect(suggestPatterns(shell("echo '* diff=x' >> .gitattributes", context({ static: WRITERS })))).toEqual([]);
    expect(suggestPatterns(shell("echo x >> .gitattributes; curl -s example.com", context({ static: WRITERS })))).toEqual(["curl *"]);
  });

  it.each([
    ["mv x .config", ".config/git"],
    ["mv x .local", ".local/bin"],
    ["ln -sfn cfg .config", ".config/git"],
    ["mv x .vscode", ".vscode/tasks.json"],
    ["mv x .cargo", ".cargo/config"],
    ["mv x .devcontainer", ".devcontainer/devcontainer.json"],
    ["mv x node_modules", "node_modules/.bin"],
    ["mv x .yarn", ".yarn/plugins"],
    ["mv x gradle", "gradle/wrapper"],
    ["mv x .bundle", ".bundle/config"],
    ["mv x .vim", ".vim/plugin"],
    ["mv x sub/.config/", ".config/git"],
    ["mv -t .cargo x", ".cargo/config"],
    ["cp -r x .vscode", ".vscode/tasks.json"],
    ["tar -C .vscode -xf a.tar", ".vscode/tasks.json"],
    ["unzip a.zip -d .vscode", ".vscode/tasks.json"],
    ["rsync -a x/ .vscode/", ".vscode/tasks.json"],
    ["cp -r x .cache", ".cache/uv"],
    ["mv x .npm", ".npm/_npx"],
    ["cp -r template/.github .", ".github/workflows"],
    ["mv x .github", ".github/workflows"],
    ["tar -C .gitlab -xf a.tar", ".gitlab/ci"],
    ["cp -r template/.vscode .", ".vscode/tasks.json"],
    ["cp -r ../other/.config sub/", ".config/git"],
  ])("%j fills a folder that holds catalogue entries, and asks naming %s", (command, entry) => {
    const d = shell(command, context({ static: WRITERS }, { mode: "accept-edits" }));
    expect(d.action, d.reason).toBe("ask");
    expect(d.reason).toContain(entry);
    expect(suggestPatterns(d)).toEqual([]);
  });

  it("with the work directory at home, ln -s x .local asks", () => {
    const d = shell("ln -s x .local", context({ static: WRITERS }, { cwd: HOME }));
    expect(d.action, d.reason).toBe("ask");
    expect(d.reason).toContain(".local/bin");
  });

  it("a rule that names the folder opens it", () => {
    const rules = ruleset(`{ "write_file": { "*": "allow", ".vscode": "allow" }, "shell_exec": { "mv *": "allow" } }`);
    expect(shell("mv x .vscode", context({ static: rules })).action).toBe("allow");
  });

  it.each(["patch -p1 < x.patch", "patch -p1 -i x.patch", "git apply x.patch", "git -C sub apply --index x.patch", "git apply --stat --apply x.patch"])(
    "%j writes files the gate cannot see, and asks under a rule allowing it",
    (command) => {
      const rules = ruleset(`{ "write_file": { "*": "allow" }, "shell_exec": { "patch *": "allow", "git *": "allow" } }`);
      const d = shell(command, context({ static: rules }));
      expect(d.action, d.reason).toBe("ask");
      expect(d.reason).toMatch(/writes the files its patch names, which the gate cannot see/);
    },
  );

  it.each(["patch --dry-run -p1 < x.patch", "git apply --check x.patch", "git apply --stat x.patch"])("%j only reports, and stays allowed", (command) => {
    const rules = ruleset(`{ "read_file": "allow", "write_file": { "*": "allow" }, "shell_exec": { "patch *": "allow", "git *": "allow" } }`);
    const d = shell(command, context({ static: rules }));
    expect(d.action, d.reason).toBe("allow");
  });

  it.each([
    "echo x > src/a.ts",
    "cp a b",
    "rm -rf node_modules dist",
    "mkdir -p .vscode",
    "tar czf backup.tgz package.json .git",
    "tar xvf release.tar",
    "unzip a.zip",
    "cp notes.md docs/",
    "cp -r src/ build/",
    "npm pkg get name",
    "git config --get user.name",
    "mv a.txt docs/",
    "mv build dist",
    "cp -r src/ .venv-tools/",
    "tar -C vendor -xf deps.tar",
    "rm -rf vendor .venv .gradle",
    "mkdir -p .github/ISSUE_TEMPLATE",
    "cp notes.md .github/CODEOWNERS",
    "ln -s shared lib",
  ])("%j stays allowed", (command) => {
    const d = shell(command, context({ static: WRITERS }));
    expect(d.action, d.reason).toBe("allow");
  });
});
