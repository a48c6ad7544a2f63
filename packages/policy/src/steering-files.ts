import { normalRoot } from "./paths.js";

/**
 * Files that decide what an allowed program runs: a configuration, a hook, a script table. A write
 * to one turns a reading or inspecting command (`git status`, `pytest`) into an arbitrary one, so
 * it is an exec-tier act (docs/design.md, "Floors"). Each entry names the programs it steers.
 */
export interface SteeringEntry {
  ecosystem: string;
  /** A home folder's own files: found at any depth, but kept read-only for long-lived processes at the home folder only. */
  home?: boolean;
  /** The programs it steers, as a person would type them. */
  programs: readonly string[];
  /** Base names. */
  files?: readonly string[];
  /** Base-name endings (`.pth`): the ending is what a rule must spell out. */
  endings?: readonly string[];
  /** Base names of a family (`docker-compose.ci.yml`), each spelled out by its own name. */
  like?: RegExp;
  /** Folders at any depth: the folder itself and everything inside. */
  folders?: readonly string[];
  /** A folder's files (`.cargo/config.toml`), at any depth. */
  inFolder?: readonly string[];
}

const JS_RUNNERS = ["npm", "pnpm", "yarn", "bun", "npx"];

export const STEERING_FILES: readonly SteeringEntry[] = [
  {
    ecosystem: "git",
    programs: ["git status", "git diff", "git add", "git commit", "git log", "every git command"],
    folders: [".git"],
    files: [".gitattributes", ".gitmodules"],
  },
  { ecosystem: "Mercurial", programs: ["hg status", "hg diff", "every hg command"], folders: [".hg"], files: [".hgrc"] },
  // Their repository settings name the pager, diff and fix tools and hooks, as git's and Mercurial's do.
  { ecosystem: "Jujutsu and Sapling", programs: ["jj log", "jj diff", "sl status", "every jj and sl command"], folders: [".jj", ".sl"] },
  {
    ecosystem: "git hook managers",
    programs: ["git commit", "git push", "pre-commit", "lefthook", "lint-staged", "commitlint", "overcommit"],
    // `.githooks` is the folder projects point `core.hooksPath` at.
    folders: [".husky", ".githooks"],
    inFolder: [".config/lefthook.yml", ".config/lefthook.yaml"],
    files: [".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml", "lefthook-local.yml", "lefthook.yaml", ".lefthook.yaml", "lefthook-local.yaml"],
    // What the hooks run: lint-staged's commands, commitlint's code, husky 4's hook table.
    like: /^(\.lintstagedrc(\.(json|ya?ml|[cm]?js))?|lint-staged\.config\.[cm]?[jt]s|\.commitlintrc(\.(json|ya?ml|[cm]?[jt]s))?|commitlint\.config\.[cm]?[jt]s|\.huskyrc(\.(json|ya?ml|js))?|husky\.config\.js|\.?lefthook(-local)?\.(json|toml)|\.lefthook-local\.ya?ml|\.pre-commit-config\.yml|\.?simple-git-hooks\.(json|[cm]?js)|\.nano-staged(rc)?(\.json)?|nano-staged\.json|\.overcommit\.yml)$/,
  },
  {
    ecosystem: "npm, pnpm, yarn and bun",
    programs: [...JS_RUNNERS, "node"],
    files: [
      "package.json",
      ".npmrc",
      ".yarnrc",
      ".yarnrc.yml",
      ".pnpmfile.cjs",
      ".pnpmfile.mjs",
      "pnpm-workspace.yaml",
      "bunfig.toml",
      "deno.json",
      "deno.jsonc",
      "deno.lock",
      // A lockfile decides what an install puts in node_modules, `.bin` included; Yarn's PnP loader is run by every `yarn`.
      "package-lock.json",
      "npm-shrinkwrap.json",
      "pnpm-lock.yaml",
      "yarn.lock",
      "bun.lock",
      "bun.lockb",
      ".pnp.cjs",
      ".pnp.loader.mjs",
    ],
    // The programs scripts run by name; the packages themselves are code the project runs anyway.
    inFolder: [".yarn/plugins", ".yarn/releases", "node_modules/.bin"],
  },
  {
    ecosystem: "linters and formatters",
    programs: [
      "eslint",
      "prettier",
      "stylelint",
      "rubocop",
      "golangci-lint",
      "phpstan",
      "php-cs-fixer",
      "markdownlint",
      "remark",
      "textlint",
      "sqlfluff",
      "mix credo",
    ],
    // Each loads code its configuration names (rubocop's `require`, golangci-lint's plugins, phpstan's `bootstrapFiles`) or is code.
    like: /^(\.eslintrc(\.(js|cjs|mjs|json|ya?ml))?|eslint\.config\.[cm]?[jt]s|\.(prettier|stylelint)rc(\.(js|cjs|mjs|json|json5|ya?ml|toml))?|(prettier|stylelint)\.config\.[cm]?[jt]s|\.rubocop\.ya?ml|\.golangci\.ya?ml|phpstan\.neon(\.dist)?|\.php-cs-fixer(\.dist)?\.php|\.babelrc(\.(json|[cm]?js))?|babel\.config\.(json|[cm]?[jt]s)|\.markdownlint\.[cm]js|\.markdownlint-cli2\.([cm]js|jsonc|ya?ml)|\.remarkrc(\.(json|[cm]?js|ya?ml))?|\.textlintrc(\.(json|[cm]?js|ya?ml))?|tslint\.json|\.sqlfluff|\.credo\.exs)$/,
  },
  {
    ecosystem: "Python",
    programs: [
      "python",
      "pytest",
      "pip",
      "tox",
      "nox",
      "coverage",
      "pdb",
      "mypy",
      "pylint",
      "flake8",
      "pipenv",
      "uv",
      "poetry",
      "hatch",
      "pixi",
      "a shell that activates a virtualenv",
    ],
    files: [
      "pytest.ini",
      ".pytest.ini",
      "pyproject.toml",
      "setup.cfg",
      "tox.ini",
      "tox.toml",
      ".flake8",
      "conftest.py",
      "setup.py",
      "noxfile.py",
      "Pipfile",
      "Pipfile.lock",
      "poetry.lock",
      "uv.lock",
      "pdm.lock",
      // hatch's and pixi's environments run the scripts and tasks these name.
      "hatch.toml",
      "pixi.toml",
      "pixi.lock",
      "pyvenv.cfg",
    ],
    endings: [".pth"],
    // mypy's `plugins`, pylint's `init-hook` and flake8's local plugins run code from a checking command; requirements
    // and constraints name what pip installs.
    like: /^(sitecustomize\.py|usercustomize\.py|\.pdbrc(\.py)?|pip\.conf|\.coveragerc|\.?mypy\.ini|\.?pylintrc|(requirements|constraints)[\w.-]*\.txt)$/,
    // A virtualenv's programs and its `activate`, as `node_modules/.bin` is npm's.
    inFolder: [".venv/bin", "venv/bin"],
  },
  { ecosystem: "make", programs: ["make"], files: ["Makefile", "makefile", "GNUmakefile"], endings: [".mk"] },
  {
    ecosystem: "CMake",
    programs: ["cmake", "ctest"],
    files: ["CMakeLists.txt", "CMakePresets.json", "CMakeUserPresets.json", "CMakeCache.txt"],
    endings: [".cmake"],
  },
  {
    ecosystem: "ninja and meson",
    programs: ["ninja", "meson"],
    files: ["build.ninja", "meson.build", "meson_options.txt", "meson.options"],
    endings: [".ninja"],
  },
  {
    ecosystem: "Cargo",
    programs: ["cargo", "rustup"],
    files: ["build.rs", "Cargo.toml", "Cargo.lock", "rust-toolchain", "rust-toolchain.toml"],
    inFolder: [".cargo/config", ".cargo/config.toml"],
  },
  { ecosystem: "Go", programs: ["go"], files: ["go.mod", "go.work"] },
  {
    ecosystem: "PHP",
    programs: ["composer", "phpunit"],
    files: ["composer.json", "composer.lock", "phpunit.xml", "phpunit.xml.dist"],
    // Composer's twin of node_modules/.bin: what `composer test` and `vendor/bin/phpunit` run.
    inFolder: ["vendor/bin"],
  },
  // `flake.lock` pins the revision of every input `nix develop` builds and runs.
  { ecosystem: "Nix", programs: ["nix develop", "nix-shell", "nix build"], files: ["flake.nix", "flake.lock", "shell.nix", "default.nix"] },
  // `terraform plan` runs the programs of `external` data sources and the providers named, from `.terraform`.
  {
    ecosystem: "Terraform",
    programs: ["terraform plan", "terraform init", "terraform validate", "tofu plan"],
    files: [".terraformrc", "terraform.rc", ".terraform.lock.hcl"],
    endings: [".tf"],
    like: /\.(tf\.json|tofu|tofu\.json)$/,
    folders: [".terraform"],
  },
  // Bazel's repository rules run programs while `bazel query` loads them; sbt compiles `project/*.sbt` and takes JVM options.
  {
    ecosystem: "Bazel and sbt",
    programs: ["bazel", "sbt"],
    files: [".bazelrc", ".bazelversion", "MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel", ".sbtopts", ".jvmopts"],
    endings: [".bzl", ".sbt"],
  },
  {
    ecosystem: "Ruby",
    programs: ["bundle", "rake", "rspec"],
    files: ["Gemfile", "Gemfile.lock", "Rakefile", ".rspec"],
    endings: [".gemspec"],
    inFolder: [".bundle/config"],
  },
  {
    ecosystem: "Gradle and Maven",
    programs: ["gradle", "./gradlew", "mvn", "./mvnw"],
    files: ["build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle.properties", "gradlew", "pom.xml", "mvnw"],
    // Scripts a build applies (`apply from: "gradle/x.gradle"`) and the build logic of `buildSrc` run as the build files do.
    like: /.\.gradle(\.kts)?$/,
    inFolder: ["gradle/wrapper"],
    folders: [".mvn", "buildSrc"],
  },
  {
    ecosystem: "task runners",
    programs: ["just", "task", "vagrant", "tilt up", "earthly", "foreman start", "honcho start"],
    files: ["justfile", "Justfile", ".justfile", "Taskfile.yml", "Taskfile.yaml", "Vagrantfile", "Tiltfile", "Earthfile", "Procfile"],
    like: /^Procfile\.[\w-]+$/,
  },
  { ecosystem: "direnv and mise", programs: ["direnv", "mise", "every shell with their hook"], files: [".envrc", "mise.toml", ".mise.toml", ".tool-versions"] },
  {
    ecosystem: "editors",
    programs: ["VS Code tasks and debugger", "dev containers"],
    inFolder: [".vscode/tasks.json", ".vscode/launch.json", ".vscode/settings.json", ".devcontainer/devcontainer.json"],
    files: [".devcontainer.json"],
  },
  { ecosystem: "Docker Compose", programs: ["docker compose"], like: /^(docker-)?compose(\.[\w.-]+)?\.ya?ml$/ },
  // Build definitions that are code, run by a build, a check or an install; their lockfiles pick the sources fetched.
  {
    ecosystem: ".NET, Swift, Dart, Elixir, Zig, Haskell, Perl, Clojure and CocoaPods",
    programs: [
      "dotnet build",
      "dotnet test",
      "swift build",
      "dart pub get",
      "mix compile",
      "zig build",
      "cabal build",
      "stack build",
      "perl Makefile.PL",
      "lein",
      "pod install",
    ],
    files: [
      "Directory.Build.props",
      "Directory.Build.targets",
      "Directory.Packages.props",
      "NuGet.config",
      "nuget.config",
      "packages.lock.json",
      "Package.swift",
      "Package.resolved",
      "pubspec.yaml",
      "pubspec.lock",
      "mix.exs",
      "mix.lock",
      "build.zig",
      "build.zig.zon",
      "Setup.hs",
      "cabal.project",
      "stack.yaml",
      "Makefile.PL",
      "Build.PL",
      "cpanfile",
      "project.clj",
      "deps.edn",
      "Podfile",
      "Podfile.lock",
    ],
    endings: [".csproj", ".fsproj", ".vbproj", ".targets", ".cabal"],
  },
  // A CI definition decides what the CI runner runs, with the repository's secrets, at a person's next push.
  {
    ecosystem: "CI services",
    programs: ["GitHub Actions", "GitLab CI", "Jenkins", "CircleCI", "Buildkite", "Azure Pipelines", "every CI run after a push"],
    files: [
      "Jenkinsfile",
      ".travis.yml",
      "bitbucket-pipelines.yml",
      ".drone.yml",
      ".woodpecker.yml",
      "appveyor.yml",
      ".appveyor.yml",
      ".cirrus.yml",
      "cloudbuild.yaml",
      "cloudbuild.yml",
      "buildspec.yml",
      "codemagic.yaml",
      "bitrise.yml",
      "action.yml",
      "action.yaml",
    ],
    like: /^(\.gitlab-ci(\.[\w-]+)?\.ya?ml|Jenkinsfile\.[\w.-]+|[\w.-]+\.jenkinsfile|azure-pipelines(\.[\w-]+)?\.ya?ml)$/,
    folders: [".circleci", ".buildkite", ".woodpecker", ".semaphore", ".tekton"],
    inFolder: [".github/workflows", ".github/actions", ".gitea/workflows", ".forgejo/workflows", ".gitlab/ci"],
  },
  // Other coding agents a person runs in the same folder start the MCP servers and hooks their project settings name.
  {
    ecosystem: "coding agents",
    programs: [
      "opencode",
      "claude",
      "cursor",
      "gemini",
      "codex",
      "aider",
      "crush",
      "zed",
      "continue",
      "kiro",
      "Amazon Q",
      "roo",
      "windsurf",
      "VS Code's MCP servers",
    ],
    files: ["opencode.json", "opencode.jsonc", ".mcp.json", ".aider.conf.yml", "crush.json", ".crush.json"],
    folders: [".opencode", ".claude", ".cursor", ".gemini", ".codex", ".zed", ".continue", ".kiro", ".amazonq", ".roo", ".windsurf"],
    inFolder: [".vscode/mcp.json"],
  },
  // A home folder's own files, wherever the work directory lies: rare in a project by these names.
  { home: true, ecosystem: "git's user settings", programs: ["git status", "git diff", "every git command"], files: [".gitconfig"], inFolder: [".config/git"] },
  {
    home: true,
    ecosystem: "shells",
    programs: ["bash", "zsh", "sh", "every shell a person starts"],
    files: [
      ".bashrc",
      ".bash_profile",
      ".bash_login",
      ".bash_logout",
      ".bash_aliases",
      ".profile",
      ".zshrc",
      ".zshenv",
      ".zprofile",
      ".zlogin",
      ".zlogout",
      ".kshrc",
      ".mkshrc",
      ".cshrc",
      ".tcshrc",
      ".login",
      ".logout",
      ".inputrc",
    ],
    inFolder: [".config/fish"],
  },
  // What these caches hold is run later without a check against the project: npx runs `_npx` as it
  // stands, and npm, uv and pip install from the others (their indexes and hashes are in the cache too).
  {
    home: true,
    ecosystem: "package caches",
    programs: ["npx", "npm install", "npm exec", "uvx", "uv run", "uv sync", "pip install", "pre-commit", "git commit"],
    inFolder: [".npm/_npx", ".npm/_cacache", ".cache/uv", ".cache/pip", ".cache/pre-commit"],
  },
  // `config` runs ProxyCommand and LocalCommand; `rc` runs at each login; authorized_keys lets one in.
  { home: true, ecosystem: "ssh", programs: ["ssh", "scp", "git fetch", "git push", "sshd"], folders: [".ssh"] },
  {
    home: true,
    ecosystem: "editors and terminal tools",
    programs: ["vim", "nvim", "emacs", "tmux", "screen", "gdb", "lldb"],
    // Debian's lesspipe runs `.lessfilter` on every `less`; `.lesskey` may set `LESSOPEN`.
    files: [".vimrc", ".gvimrc", ".exrc", ".emacs", ".tmux.conf", ".screenrc", ".gdbinit", ".lldbinit", ".lessfilter", ".lesskey"],
    folders: [".emacs.d"],
    inFolder: [".config/nvim", ".vim/plugin", ".config/tmux"],
  },
  {
    home: true,
    ecosystem: "interactive interpreters and database clients",
    programs: ["irb", "pry", "R", "ghci", "iex", "ipython", "octave", "psql", "mysql", "sqlite3"],
    // ghci, iex and R also read theirs from the current folder.
    files: [".irbrc", ".pryrc", ".Rprofile", ".ghci", ".iex.exs", ".octaverc", ".psqlrc", ".my.cnf", ".sqliterc"],
    folders: [".ipython"],
  },
  // Where uploads and downloads go, with which credentials, and what helper programs run.
  {
    home: true,
    ecosystem: "network clients",
    programs: ["curl", "wget", "docker", "twine", "gh", "gem"],
    files: [".curlrc", ".wgetrc", ".netrc", ".pypirc", ".gemrc"],
    inFolder: [".docker/config.json", ".config/gh"],
  },
  {
    home: true,
    ecosystem: "a person's session",
    programs: ["the desktop session", "systemd --user", "every program found on the PATH"],
    files: [".xinitrc", ".xprofile", ".xsession", ".pam_environment"],
    inFolder: [".config/autostart", ".config/systemd", ".config/environment.d", ".local/bin", ".cargo/bin"],
  },
  // A person's tools' own settings: husky sources `init.sh` before each hook, `go env -w` writes GOFLAGS, starship runs its custom modules at each prompt.
  {
    home: true,
    ecosystem: "tools' user settings",
    programs: ["git commit", "go", "direnv", "mise", "pnpm", "starship", "gradle", "gpg", "git commit -S"],
    // Gradle runs `init.d` scripts before every build; gpg-agent.conf names the pinentry program a signing starts.
    inFolder: [".config/husky", ".config/go", ".config/direnv", ".config/mise", ".config/pnpm", ".config/starship.toml", ".gradle/init.d"],
    folders: [".gnupg"],
  },
];

/** The home folder's files and folders of the catalogue, relative to it: what a long-lived sandboxed process must not change. */
export const HOME_STEERING_PATHS: readonly string[] = STEERING_FILES.filter((e) => e.home).flatMap((e) => [
  ...(e.files ?? []),
  ...(e.folders ?? []),
  ...(e.inFolder ?? []),
]);

/** The worker's own agent and skill folders, at the top of the work directory. */
const WORKER_FOLDERS = ["agents", "skills"];
const WORKER_PROGRAMS = ["the worker's task tool", "the worker's skill tool"];

/** A catalogue match: the entry, and the name a rule must spell out to open the file. */
export interface Steering {
  ecosystem: string;
  programs: readonly string[];
  name: string;
  /** What the write would do, when that is more than steering the programs (making a folder a git repository). */
  effect?: string;
}

/**
 * Git takes a folder with a valid HEAD, `objects/` and `refs/` for a (bare) git directory, in the
 * folder and every folder below it, and obeys its config. HEAD is the one file every git directory
 * needs and a project's own files are not named; the other parts count in a folder named as bare
 * repositories are (`NAME.git`), or one that has a HEAD where the files are known.
 */
const GIT_DIR_HEAD = "HEAD";
const GIT_DIR_PARTS: ReadonlySet<string> = new Set(["config", "config.worktree", "commondir", "gitdir", "packed-refs", "objects", "refs", "hooks", "info"]);
const GIT_REPOSITORY_PROGRAMS = ["git status", "git diff", "git log", "every git command run in that folder or below it"];

/** Whether a folder holds a HEAD now: answered where the files are, absent elsewhere. */
export type HasGitHead = (folder: string) => boolean;

const byFile = new Map<string, SteeringEntry>();
const byFolder = new Map<string, SteeringEntry>();
const byInFolder = new Map<string, SteeringEntry>();
const byEnding = new Map<string, SteeringEntry>();
for (const entry of STEERING_FILES) {
  for (const f of entry.files ?? []) byFile.set(f, entry);
  for (const f of entry.folders ?? []) byFolder.set(f, entry);
  for (const f of entry.inFolder ?? []) byInFolder.set(f, entry);
  for (const f of entry.endings ?? []) byEnding.set(f, entry);
}
const WITH_LIKE = STEERING_FILES.filter((e) => e.like);
const firstSegments = [...byFolder.keys(), ...[...byInFolder.keys()].map((k) => k.slice(0, k.indexOf("/")))];
const FOLDER_NAMES = new RegExp(`/(${[...new Set(firstSegments)].map((n) => n.replace(/[.]/g, "\\.")).join("|")})(/|$)`);

const found = (entry: SteeringEntry, name: string): Steering => ({ ecosystem: entry.ecosystem, programs: entry.programs, name });

function byBase(base: string): Steering | null {
  const file = byFile.get(base);
  if (file) return found(file, base);
  const dot = base.lastIndexOf(".");
  const ending = dot > 0 ? byEnding.get(base.slice(dot)) : undefined;
  if (ending) return found(ending, base.slice(dot));
  for (const e of WITH_LIKE) if (e.like!.test(base)) return found(e, base);
  return null;
}

function bySegments(parts: readonly string[]): Steering | null {
  for (let i = 0; i < parts.length; i++) {
    const folder = byFolder.get(parts[i]!);
    if (folder) return found(folder, parts[i]!);
    if (i + 1 < parts.length) {
      const pair = `${parts[i]}/${parts[i + 1]}`;
      const inside = byInFolder.get(pair);
      if (inside) return found(inside, pair);
    }
  }
  return null;
}

function workerFolder(absolute: string, cwd: string): Steering | null {
  const root = normalRoot(cwd);
  const prefix = root === "/" ? "/" : `${root}/`;
  if (!absolute.startsWith(prefix)) return null;
  const rest = absolute.slice(prefix.length);
  const top = WORKER_FOLDERS.find((f) => rest === f || rest.startsWith(`${f}/`));
  return top ? { ecosystem: "the worker", programs: WORKER_PROGRAMS, name: top } : null;
}

function gitDirectory(folder: string, name: string, made: boolean): Steering {
  const effect = made ? `would make ${folder || "/"} a git repository, whose config` : `is part of the git directory ${folder}, whose config`;
  return { ecosystem: "git", programs: GIT_REPOSITORY_PROGRAMS, name, effect };
}

/** A HEAD, or a part of a git directory in a folder that is one by its name or its HEAD. */
function gitDirectoryPart(absolute: string, base: string, hasHead?: HasGitHead): Steering | null {
  const parent = absolute.slice(0, absolute.length - base.length - 1);
  if (base === GIT_DIR_HEAD) return gitDirectory(parent, GIT_DIR_HEAD, !hasHead?.(parent));
  const parts = absolute.split("/");
  for (let i = parts.length - 2; i >= 1; i--) {
    if (!GIT_DIR_PARTS.has(parts[i + 1]!)) continue;
    const folder = parts.slice(0, i + 1).join("/");
    const part = `${parts[i]}/${parts[i + 1]}`;
    if ((parts[i]!.endsWith(".git") && parts[i] !== ".git") || hasHead?.(folder)) return gitDirectory(folder, part, false);
  }
  return null;
}

/**
 * Whether an absolute path is, or lies in, a file of the catalogue; `cwd` places the worker's own
 * folders; `hasHead` tells where the files are whether a folder has a HEAD.
 */
export function steeringFileOf(absolute: string, cwd: string, hasHead?: HasGitHead): Steering | null {
  const base = absolute.slice(absolute.lastIndexOf("/") + 1);
  const named = byBase(base);
  if (named) return named;
  // Most paths pass through none of the catalogue's folders: one test, and no split, for those.
  const inFolder = FOLDER_NAMES.test(absolute) ? bySegments(absolute.split("/")) : null;
  return inFolder ?? gitDirectoryPart(absolute, base, hasHead) ?? workerFolder(absolute, cwd);
}

/** Folder names everyday work fills whole for other reasons: `vendor` holds C, Go and Ruby sources vendored by `tar -C vendor`. */
const FILLED_EVERY_DAY: ReadonlySet<string> = new Set(["vendor"]);

/** The catalogue's entries inside a folder of each name: `.config` holds `.config/git`, `.config/fish`, ... */
const HELD_BY = new Map<string, SteeringEntry[]>();
for (const key of byInFolder.keys()) {
  const top = key.slice(0, key.indexOf("/"));
  HELD_BY.set(top, [...(HELD_BY.get(top) ?? []), byInFolder.get(key)!]);
}

/**
 * Whether a folder by this name would hold catalogue entries (a symlink named `.vscode`, or a folder
 * a command fills as a whole, `mv x .config`, `tar -C .vscode -x`), whatever files the gate cannot
 * see it is given: the entries it would hold, or null. `filled` leaves out the names everyday work
 * fills whole. The folder itself being an entry is `steeringFileOf`'s to answer.
 */
export function steeringHolderOf(absolute: string, how: { filled?: boolean } = {}): Steering | null {
  const folder = absolute.replace(/\/+$/, "");
  const base = folder.slice(folder.lastIndexOf("/") + 1);
  const entries = HELD_BY.get(base);
  if (!entries || (how.filled && FILLED_EVERY_DAY.has(base))) return null;
  const held = [...byInFolder.keys()].filter((k) => k.startsWith(`${base}/`));
  return {
    ecosystem: [...new Set(entries.map((e) => e.ecosystem))].join(", "),
    programs: [...new Set(entries.flatMap((e) => e.programs))],
    name: base,
    effect: `would hold ${held.join(", ")}, whose content`,
  };
}

/** Only a rule whose pattern spells out the file's name opens it: `**` or `*.json` speak of no file in particular. */
export function ruleNames(pattern: string, steering: Steering): boolean {
  return pattern.replace(/\\/g, "").includes(steering.name);
}

/** A program, or a program and its subcommand, shown as a command; anything else is prose. */
const COMMAND = /^[\w./-]+( [\w-]+)?$/;

/** Why a write to the file asks, in the words a person sees. */
export function steeringReason(absolute: string, steering: Steering): string {
  const shown = steering.programs.map((p) => (COMMAND.test(p) ? `\`${p}\`` : p)).join(", ");
  const does = steering.effect ? `${absolute} ${steering.effect}` : absolute;
  return `${does} decides what ${shown} run (${steering.ecosystem}); writing it asks unless a rule naming ${steering.name} allows it`;
}
