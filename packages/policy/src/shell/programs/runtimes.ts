import type { SpecInput } from "../spec.js";

/**
 * Interpreters, package managers and build tools. They run the project's own code (scripts,
 * Makefiles, package.json), which an operator's allow rule accepts; what they are told to run
 * from the command line itself (`-c`, `-e`, `--eval`, `--config`) the gate cannot read.
 */
const PYTHON: SpecInput = {
  options: "-c:runs> -m:command -B -b -d -E -h -I -O -OO -P -q -s -S -u -v -V -x -W:text -X:text -i! --version --help --check-hash-based-pycs:text",
  operands: { lead: ["read"], rest: "text", optionsFirst: true },
  scriptOperand: true,
};
const NODE: SpecInput = {
  options:
    "-e:runs --eval:runs -p:runs --print:runs -r:runs --require:runs --import:runs --loader:runs " +
    "--experimental-loader:runs -i! --interactive! -c --check -v --version -h --help --test --watch " +
    "--watch-path:path --env-file:read --env-file-if-exists:read --input-type:text --inspect?=text " +
    "--inspect-brk?=text --enable-source-maps --no-warnings --trace-warnings --max-old-space-size?=text " +
    "--stack-size?=text --expose-gc --experimental-vm-modules --no-deprecation --trace-deprecation " +
    "--trace-uncaught --unhandled-rejections?=text --conditions:text -C:text --preserve-symlinks " +
    "--title:text --test-reporter:text --test-name-pattern:text --experimental-strip-types " +
    "--no-experimental-fetch",
  operands: { lead: ["read"], rest: "text", optionsFirst: true },
  scriptOperand: true,
  findsScriptsWith: ["--test"],
};
/** Installing globally writes outside the work directory; `--location` may choose that too. */
const OUTSIDE = "installs into the user's or the system's folders, outside the work directory";
const GLOBAL: Record<string, string> = {
  "-g": OUTSIDE,
  "--global": OUTSIDE,
  "--location": `chooses where it installs, which may be outside the work directory`,
};
const PACKAGE_MANAGER = (extra: string): SpecInput => ({
  options:
    `-s --silent -q --quiet -d --loglevel:text -w:text --workspace:text -C:project --dir:project ` +
    `--prefix:project --filter:text -F:text -r --recursive --if-present -g --global -D --save-dev -P ` +
    `--save-prod --location:text -E --save-exact -O --save-optional --frozen-lockfile --prefer-offline --offline ` +
    `--no-save --production --dev --json --parseable --depth:text --color?=text --no-color ` +
    `--ignore-scripts --workspaces --include-workspace-root --reporter:text --registry:text --tag:text ` +
    `--access:text --otp:text --dry-run --force -y --yes --stream --parallel --aggregate-output ` +
    `--sequential --no-bail --fail-if-no-match --script-shell:runs --node-options:runs --userconfig:runs ` +
    `--globalconfig:runs --shell-emulator --shell:runs --git:runs --node-gyp:runs --viewer:runs ` +
    `--browser:runs --editor:runs --init-module:runs --onload-script:runs ${extra}`,
  inheritOptions: true,
  anyFlag: true,
  operands: "text",
  subcommands: withAnyFlag({
    install: { operands: "text", optionRisks: GLOBAL },
    i: { operands: "text", optionRisks: GLOBAL },
    ci: { operands: "text", optionRisks: GLOBAL },
    add: { operands: "text", optionRisks: GLOBAL },
    remove: { operands: "text", optionRisks: GLOBAL },
    rm: { operands: "text", optionRisks: GLOBAL },
    uninstall: { operands: "text", optionRisks: GLOBAL },
    update: { operands: "text", optionRisks: GLOBAL },
    up: { operands: "text", optionRisks: GLOBAL },
    upgrade: { operands: "text", optionRisks: GLOBAL },
    run: { operands: "text" },
    "run-script": { operands: "text" },
    test: { operands: "text" },
    t: { operands: "text" },
    start: { operands: "text" },
    build: { operands: "text" },
    list: { operands: "text" },
    ls: { operands: "text" },
    ll: { operands: "text" },
    outdated: { operands: "text" },
    view: { operands: "text" },
    info: { operands: "text" },
    show: { operands: "text" },
    why: { operands: "text" },
    explain: { operands: "text" },
    audit: { operands: "text" },
    // `npm init NAME` runs the package create-NAME.
    init: { commandAt: 0 },
    pack: { operands: "text" },
    publish: { operands: "text" },
    version: { operands: "text" },
    prune: { operands: "text" },
    rebuild: { operands: "text" },
    dedupe: { operands: "text" },
    link: { operands: "path", risk: "links packages through the global folder, outside the work directory" },
    unlink: { operands: "text" },
    lint: { operands: "text" },
    typecheck: { operands: "text" },
    format: { operands: "text" },
    dev: { operands: "text" },
    store: { operands: "text" },
    root: { operands: "text" },
    bin: { operands: "text" },
    help: { operands: "text" },
    "--version": { operands: "text" },
    workspaces: { operands: "text" },
    config: { risk: "changes settings that can make it run programs", operands: "text" },
    pkg: {
      operands: "text",
      subcommands: {
        get: { operands: "text" },
        ...Object.fromEntries(["set", "delete", "fix"].map((name) => [name, { risk: "changes package.json, which decides what it runs", operands: "text" }])),
      },
    },
    exec: { commandAt: 0, options: "-c:script --call:script --package:text -p:text" },
    x: { commandAt: 0, options: "-c:script --call:script --package:text" },
    dlx: { commandAt: 0, options: "--package:text -p:text" },
    create: { risk: "downloads and runs a package's initialiser", operands: "text" },
  }),
});

/** A package manager's subcommands take its many flags too. */
function withAnyFlag(subcommands: Record<string, SpecInput>): Record<string, SpecInput> {
  return Object.fromEntries(Object.entries(subcommands).map(([name, s]) => [name, { anyFlag: true, ...s }]));
}
const CARGO_SUB: SpecInput = {
  anyFlag: true,
  operands: "text",
  options:
    "-p:text --package:text --bin:text --example:text --test:text --bench:text --features:text -F:text " +
    "--target:text --target-dir:write --manifest-path:runs -j:text --jobs:text --profile:text " +
    "--message-format:text --color:text -Z:runs --config:runs",
};
const GO_SUB: SpecInput = {
  anyFlag: true,
  singleDashLong: true,
  operands: "text",
  options:
    "-o:write -C:project -exec:runs -toolexec:runs -vettool:runs -ldflags:text -gcflags:text -asmflags:text " +
    "-tags:text -run:text -bench:text -count:text -timeout:text -p:text -mod:text -modfile:read " +
    "-overlay:read -pgo:read -coverprofile:write -cpuprofile:write -memprofile:write -blockprofile:write " +
    "-mutexprofile:write -trace:write -outputdir:write -json -v -x -n -a -race -cover -work -trimpath",
};
const TOOL = (options = ""): SpecInput => ({ anyFlag: true, options, operands: "read" });
/** Formatters and linters that rewrite the files they are given, always or with a fixing option. */
const rewriting = (rewrites: true | string[], options: string): SpecInput => ({ ...TOOL(options), rewrites });

/** docker subcommands, by name; `container` and `image` hold the same under other names. */
const DOCKER_RUNS: ReadonlySet<string> = new Set(["run", "exec", "create", "compose", "attach", "debug"]);
function dockerCommand(name: string): SpecInput {
  return {
    anyFlag: true,
    operands: name === "cp" ? { rest: "read", last: "write" } : name === "build" ? "read" : "text",
    ...(DOCKER_RUNS.has(name) ? { risk: "runs commands in a container, with whatever it mounts" } : {}),
    // Entitlements let a build's steps act on the host (`security.insecure` is a privileged container).
    optionRisks: { "--allow": "grants the build's steps privileges over the host (security.insecure, network.host)" },
    options:
      "-f:fields --file:fields -o:fields --output:fields -t:text --tag:text -e:text --env:text --env-file:read " +
      "-v:text --volume:text -p:text --publish:text --name:text -w:text --workdir:text -u:text --user:text " +
      "--network:text --entrypoint:text --label:text -l:text --build-arg:text --target:text --platform:text " +
      "--mount:fields --format:text --filter:text --project-name:text -n:text --tail:text --since:text --allow:text " +
      "--until:text --profile:text --scale:text --secret:fields --ssh:fields --cache-to:fields " +
      "--cache-from:fields --build-context:fields --iidfile:write --metadata-file:write --progress:text " +
      "-a --all -q --quiet --rm -d --detach -i --interactive --no-cache --pull --load --push --no-trunc " +
      "-s --size --force --follow --timestamps",
  };
}
const dockerGroup = (names: string[], more: Record<string, SpecInput> = {}): SpecInput => ({
  anyFlag: true,
  operands: "text",
  subcommands: { ...Object.fromEntries(names.map((n) => [n, dockerCommand(n)])), ...more },
});
const DOCKER_CONTAINER = [
  "attach",
  "commit",
  "cp",
  "create",
  "diff",
  "exec",
  "export",
  "inspect",
  "kill",
  "logs",
  "ls",
  "list",
  "pause",
  "port",
  "prune",
  "rename",
  "restart",
  "rm",
  "run",
  "start",
  "stats",
  "stop",
  "top",
  "unpause",
  "update",
  "wait",
  "ps",
];
/** `docker compose` subcommands that only report on the project's containers. */
const COMPOSE_REPORTS = ["logs", "ps", "config", "images", "top", "port", "version", "ls", "events"];
const COMPOSE_ACTS = ["up", "down", "run", "exec", "create", "start", "stop", "restart", "rm", "pull", "push", "build", "kill", "pause"];
const COMPOSE_MORE = ["unpause", "cp", "attach", "watch", "wait", "scale", "stats", "alpha", "publish", "commit", "export"];
const DOCKER_COMPOSE: SpecInput = {
  ...dockerCommand("compose"),
  risk: undefined,
  subcommands: Object.fromEntries([
    ...COMPOSE_REPORTS.map((s) => [s, { ...dockerCommand(s), risk: undefined, operands: "text" }]),
    ...[...COMPOSE_ACTS, ...COMPOSE_MORE].map((s) => [s, { ...dockerCommand(s), risk: "runs commands in a container, with whatever it mounts" }]),
  ]),
};
const DOCKER_IMAGE = ["build", "history", "import", "inspect", "load", "ls", "list", "prune", "pull", "push", "rm", "save", "tag"];
const DOCKER: SpecInput = {
  options:
    "-H:text --host:text --context:text -c:text --config:runs -l:text --log-level:text -D --debug --tls " +
    "--tlsverify --tlscacert:read --tlscert:read --tlskey:read -v --version",
  operands: "text",
  // The client hands registry credentials to the daemon for pulls and pushes.
  optionRisks: Object.fromEntries(["-H", "--host"].map((o) => [o, "sends registry credentials to the daemon it names"])),
  subcommands: {
    ...Object.fromEntries(
      [
        ...DOCKER_CONTAINER,
        ...DOCKER_IMAGE,
        "images",
        "rmi",
        "version",
        "info",
        "login",
        "logout",
        "network",
        "volume",
        "system",
        "stats",
        "search",
        "events",
      ].map((s) => [s, dockerCommand(s)]),
    ),
    compose: DOCKER_COMPOSE,
    container: dockerGroup(DOCKER_CONTAINER),
    image: dockerGroup(DOCKER_IMAGE),
    buildx: dockerGroup(["build", "ls", "du", "inspect", "prune", "use", "version", "stop", "rm"], {
      bake: dockerCommand("bake"),
      create: dockerCommand("buildx create"),
    }),
  },
};

const KUBECTL_OPTIONS =
  "-f:read --filename:read -o:text --output:text -l:text --selector:text -c:text --container:text " +
  "--field-selector:text --sort-by:text --tail:text --since:text -k:path --kustomize:path " +
  "--template:text --type:text -p:text --patch:text --patch-file:read --image:text --replicas:text " +
  "--timeout:text --for:text -A --all-namespaces -w --watch --show-labels --no-headers -R --recursive " +
  "--dry-run?=text --all --force --grace-period:text --previous --follow --raw:text -s:text --server:text";
/** A kubectl command with its flags; one that runs commands in a container asks. */
/** kubectl takes its global options after the command too; `--server` sends its credentials where it says. */
const SERVER = "sends the credentials kubectl connects with to the server it names";
const KUBECTL_RISKS: Record<string, string> = { "-s": SERVER, "--server": SERVER };
const kubectlCommand = (more: Partial<SpecInput> = {}): SpecInput => ({
  anyFlag: true,
  operands: "text",
  options: KUBECTL_OPTIONS,
  ...more,
  optionRisks: { ...KUBECTL_RISKS, ...more.optionRisks },
});
const KUBECONFIG_CHANGE = "changes the kubeconfig outside the work directory, which can name programs kubectl runs for credentials";
const CREDENTIALS = "prints the credentials kubectl connects with";
const KUBECTL: SpecInput = {
  options:
    "-n:text --namespace:text --context:text --kubeconfig:runs --cluster:text --user:text -s:text " +
    "--server:text --token:text -v:text --v:text --request-timeout:text",
  operands: "text",
  optionRisks: KUBECTL_RISKS,
  subcommands: {
    ...Object.fromEntries(
      [
        "get",
        "describe",
        "apply",
        "delete",
        "edit",
        "patch",
        "replace",
        "scale",
        "rollout",
        "expose",
        "port-forward",
        "proxy",
        "top",
        "label",
        "annotate",
        "version",
        "cluster-info",
        "explain",
        "diff",
        "wait",
        "auth",
        "api-resources",
        "api-versions",
        "drain",
        "cordon",
        "uncordon",
        "taint",
        "set",
        "autoscale",
        "events",
        "kustomize",
      ].map((s) => [s, kubectlCommand()]),
    ),
    ...Object.fromEntries(["exec", "run", "debug", "attach"].map((s) => [s, kubectlCommand({ risk: "runs commands in a container" })])),
    cp: kubectlCommand({ operands: { rest: "read", last: "write" } }),
    logs: kubectlCommand({ options: `${KUBECTL_OPTIONS} -f --follow -p` }),
    create: {
      ...kubectlCommand(),
      subcommandOptional: true,
      subcommands: {
        ...Object.fromEntries(
          "clusterrole clusterrolebinding configmap cm cronjob cj deployment deploy ingress ing job namespace ns poddisruptionbudget pdb priorityclass pc quota resourcequota role rolebinding secret service svc serviceaccount sa"
            .split(" ")
            .map((s) => [s, kubectlCommand()]),
        ),
        token: kubectlCommand({ risk: "makes and prints a service account's token, a credential" }),
      },
    },
    config: {
      ...kubectlCommand(),
      subcommands: {
        ...Object.fromEntries(["get-contexts", "get-clusters", "get-users", "current-context"].map((s) => [s, kubectlCommand()])),
        view: kubectlCommand({ options: `${KUBECTL_OPTIONS} --raw --flatten --minify`, optionRisks: { "--raw": CREDENTIALS } }),
        ...Object.fromEntries(
          [
            "set",
            "unset",
            "set-cluster",
            "set-context",
            "set-credentials",
            "use-context",
            "use",
            "delete-cluster",
            "delete-context",
            "delete-user",
            "rename-context",
          ].map((s) => [s, kubectlCommand({ risk: KUBECONFIG_CHANGE })]),
        ),
      },
    },
  },
};

const TERRAFORM_OPTIONS =
  "-var-file:read -var:text -target:text -replace:text -out:write -state:write -state-out:write " +
  "-backup:write -plugin-dir:runs -from-module:text -lock?=text -lock-timeout:text -input?=text -auto-approve " +
  "-no-color -json -upgrade -reconfigure -migrate-state -refresh-only -refresh?=text -destroy -parallelism:text " +
  "-compact-warnings -detailed-exitcode -recursive -check -diff -write?=text -list?=text -raw -chdir:project";
const terraformCommand = (more: Partial<SpecInput> = {}): SpecInput => ({
  anyFlag: true,
  singleDashLong: true,
  operands: "text",
  options: TERRAFORM_OPTIONS,
  ...more,
});
const TERRAFORM: SpecInput = {
  anyFlag: true,
  singleDashLong: true,
  operands: "text",
  // Another directory's configuration names the providers and programs (external data) it runs.
  options: "-chdir:project -version -help",
  subcommands: {
    ...Object.fromEntries(
      [
        "init",
        "plan",
        "apply",
        "destroy",
        "validate",
        "show",
        "output",
        "state",
        "workspace",
        "version",
        "graph",
        "import",
        "refresh",
        "taint",
        "untaint",
        "get",
        "logout",
        "force-unlock",
        "test",
        "modules",
        "metadata",
      ].map((s) => [s, terraformCommand()]),
    ),
    // It rewrites the files it is given.
    fmt: terraformCommand({ operands: "write" }),
    providers: {
      ...terraformCommand(),
      subcommandOptional: true,
      subcommands: { lock: terraformCommand(), schema: terraformCommand(), mirror: terraformCommand({ operands: "write" }) },
    },
    console: terraformCommand({ risk: "evaluates the expressions it reads" }),
    login: terraformCommand({ risk: "stores a credential in the user's folder, outside the work directory" }),
  },
};

export const RUNTIME_PROGRAMS: Record<string, SpecInput> = {
  python: PYTHON,
  python3: PYTHON,
  python2: PYTHON,
  node: NODE,
  ruby: {
    options: "-e:runs -r:runs -I:path -n -p -a -l -w -W?=text -c -v --version -x -d -E:text",
    operands: { lead: ["read"], rest: "text", optionsFirst: true },
    scriptOperand: true,
  },
  php: { options: "-r:runs -f:read -l -S:runs -a! -d:runs -n -v -m -i", operands: { lead: ["read"], rest: "text", optionsFirst: true }, scriptOperand: true },
  deno: {
    anyFlag: true,
    operands: "text",
    subcommands: {
      run: { anyFlag: true, operands: { lead: ["read"], rest: "text", optionsFirst: true } },
      test: { anyFlag: true, operands: "read" },
      fmt: { anyFlag: true, operands: "write" },
      lint: { anyFlag: true, operands: "read" },
      check: { anyFlag: true, operands: "read" },
      eval: { risk: "runs the code it is given", anyFlag: true, operands: "text" },
    },
  },
  npm: PACKAGE_MANAGER("--ws --include:text --omit:text --save --cache:write --pack-destination:write"),
  // `pnpm NAME` and `yarn NAME` run the script or the package's program NAME.
  pnpm: {
    ...PACKAGE_MANAGER(
      "--shamefully-hoist --lockfile-only --resolution-only --store-dir:write --virtual-store-dir:write " +
        "--modules-dir:write --global-dir:write --cache-dir:write",
    ),
    runsOtherSubcommands: true,
  },
  yarn: {
    ...PACKAGE_MANAGER("--cwd:project --immutable --check-cache --modules-folder:write --cache-folder:write --global-folder:write --link-folder:write"),
    runsOtherSubcommands: true,
  },
  bun: PACKAGE_MANAGER("--cwd:project --bun --cache-dir:write --backend:text"),
  npx: { options: "-y --yes --no -q --quiet -p:text --package:text -c:script --call:script --prefer-offline", commandAt: 0 },
  pnpx: { options: "-y --yes -p:text --package:text", commandAt: 0 },
  bunx: { options: "--bun -p:text --package:text", commandAt: 0 },
  make: {
    options:
      "-B -d -e -i -k -n -p -q -r -R -s -S -t -v -w -C:project -f:runs -I:path -j?=text -l?=text -o:text " +
      "-W:text -O?=text --always-make --debug?=text --environment-overrides --ignore-errors --keep-going " +
      "--dry-run --just-print --recon --print-data-base --question --no-builtin-rules " +
      "--no-builtin-variables --silent --quiet --no-silent --stop --touch --trace --version " +
      "--print-directory --no-print-directory --directory:project --file:runs --makefile:runs " +
      "--include-dir:path --jobs?=text --load-average?=text --old-file:text --assume-old:text " +
      "--new-file:text --assume-new:text --what-if:text --output-sync?=text --eval:runs",
    operands: "text",
  },
  cargo: {
    options: "-V --version -v -q --verbose --quiet --color:text --locked --offline --frozen -Z:runs --config:runs -C:project --list",
    operands: "text",
    subcommands: Object.fromEntries(
      [
        "build",
        "b",
        "check",
        "c",
        "test",
        "t",
        "run",
        "r",
        "clippy",
        "fmt",
        "doc",
        "bench",
        "clean",
        "new",
        "init",
        "add",
        "remove",
        "update",
        "search",
        "tree",
        "metadata",
        "publish",
        "install",
        "uninstall",
        "fetch",
        "package",
        "vendor",
        "version",
        "help",
        "nextest",
        "generate-lockfile",
        "pkgid",
        "locate-project",
      ].map((s) => [
        s,
        s === "install"
          ? { ...CARGO_SUB, options: `${CARGO_SUB.options} --root:write --path:read`, risk: "installs programs into a folder outside the work directory" }
          : // They make the directory they are given.
            s === "new" || s === "init" || s === "vendor" || s === "fmt"
            ? { ...CARGO_SUB, operands: "write" as const }
            : CARGO_SUB,
      ]),
    ),
  },
  go: {
    operands: "text",
    subcommands: {
      ...Object.fromEntries(
        ["build", "test", "run", "vet", "fmt", "get", "install", "list", "clean", "doc", "version", "env", "help", "work", "fix"].map((s) => [s, GO_SUB]),
      ),
      mod: { ...GO_SUB, subcommands: Object.fromEntries(["tidy", "download", "init", "vendor", "verify", "why", "graph", "edit"].map((s) => [s, GO_SUB])) },
      generate: { risk: "runs the commands written in //go:generate comments", anyFlag: true, operands: "text" },
      install: { ...GO_SUB, risk: "installs programs into a folder outside the work directory" },
      env: { singleDashLong: true, options: "-json -changed -w! -u!", operands: "text" },
      clean: {
        ...GO_SUB,
        optionRisks: Object.fromEntries(
          ["-cache", "-modcache", "-fuzzcache"].map((o) => [o, "removes a cache in the user's folder, outside the work directory"]),
        ),
      },
      tool: {
        risk: "runs a tool binary",
        anyFlag: true,
        operands: "text",
        // Reports on a coverage profile: it reads the profile and writes only where -o says.
        subcommands: { cover: { singleDashLong: true, options: "-func:read -html:read -o:write -mode:text -var:text", operands: "read" } },
      },
    },
  },
  rustc: TOOL("-o:write --out-dir:write -C:runs --codegen:runs -Z:runs --extern:runs --crate-type:text --edition:text --emit:fields -L:path"),
  tsc: TOOL(
    "-p:read --project:read --outDir:write --outFile:write --rootDir:path --target:text --module:text " +
      "--lib:text --moduleResolution:text --jsx:text --declarationDir:write --tsBuildInfoFile:write " +
      "--generateTrace:write",
  ),
  eslint: rewriting(
    ["--fix", "--fix-dry-run"],
    "-c:code --config:code --fix --fix-dry-run -f:text --format:text -o:write --output-file:write " +
      "--ext:text --rulesdir:runs --plugin:runs --resolve-plugins-relative-to:runs --rule:text --env:text " +
      "--global:text --parser:runs --ignore-path:read --ignore-pattern:text --max-warnings:text " +
      "--cache-location:write",
  ),
  prettier: rewriting(
    ["--write", "-w"],
    "--config:code --plugin:runs -w --write -c --check -l --list-different --ignore-path:read " +
      "--log-level:text --parser:text --print-width:text --tab-width:text --end-of-line:text " +
      "--trailing-comma:text --arrow-parens:text --prose-wrap:text --cache-location:write",
  ),
  biome: {
    anyFlag: true,
    operands: "read",
    subcommands: Object.fromEntries(
      ["check", "lint", "format", "ci", "version"].map((s) => [
        s,
        rewriting(
          ["--write", "--apply", "--apply-unsafe", "--fix", "--unsafe"],
          "--config-path:read --reporter:text --max-diagnostics:text --write --apply --apply-unsafe --fix --unsafe",
        ),
      ]),
    ),
  },
  vitest: TOOL(
    "-c:code --config:code --globalSetup:code --setupFiles:code -t:text --testNamePattern:text " +
      "--reporter:text --outputFile:write --project:text --root:path --dir:path --environment:text " +
      "--pool:text --shard:text --coverage --coverage.provider:text",
  ),
  jest: TOOL(
    "-c:code --config:code --setupFiles:code --setupFilesAfterEnv:code --globalSetup:code " +
      "--globalTeardown:code --testRunner:code --testEnvironment:code --resolver:code --transform:runs " +
      "-t:text --testNamePattern:text --reporters:text --outputFile:write --rootDir:path " +
      "--testPathPattern:text --shard:text",
  ),
  pytest: TOOL(
    "-k:text -m:text -p:plugin -c:read --rootdir:path --basetemp:write --junitxml:write --junit-xml:write " +
      "--cov:text --cov-report:fields --maxfail:text --tb:text -W:text -o:runs --override-ini:runs " +
      "--confcutdir:path --ignore:path --deselect:text --durations:text -n:text --log-level:text " +
      "--log-file:write",
  ),
  mypy: TOOL("--config-file:code --python-executable:runs --python-version:text --cache-dir:write -p:text -m:text"),
  ruff: {
    anyFlag: true,
    operands: "read",
    subcommands: Object.fromEntries(
      ["check", "format", "version", "rule"].map((s) => [
        s,
        rewriting(
          s === "format" ? true : ["--fix", "--unsafe-fixes"],
          "--config:read --select:text --ignore:text --extend-select:text --output-format:text " +
            "--target-version:text --line-length:text --cache-dir:write --fix --unsafe-fixes --check --diff",
        ),
      ]),
    ),
  },
  black: rewriting(true, "--check --diff --config:read -l:text --line-length:text -t:text --target-version:text --include:text --exclude:text"),
  pip: {
    anyFlag: true,
    operands: "text",
    options:
      "-q -v --quiet --verbose --disable-pip-version-check --no-input --isolated --no-cache-dir --cache-dir:write --log:write --proxy:text --python:runs",
    subcommands: Object.fromEntries(
      ["install", "uninstall", "list", "show", "freeze", "download", "wheel", "check", "search", "index", "inspect", "hash", "cache", "debug", "help"].map(
        (s) => [
          s,
          {
            anyFlag: true,
            operands: "text",
            options:
              "--user! -r:read --requirement:read -c:read --constraint:read -e:path --editable:path -t:write " +
              "--target:write --prefix:write --root:write -d:write --dest:write -i:text --index-url:text " +
              "--extra-index-url:text -f:text --find-links:text --config-settings:text -C:text",
          } satisfies SpecInput,
        ],
      ),
    ),
  },
  docker: DOCKER,
  kubectl: KUBECTL,
  terraform: TERRAFORM,
};
