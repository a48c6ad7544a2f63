import { Command } from "commander";
import { CliError } from "./cli-error.js";
import { LOCAL_OPTIONS, MODE_OPTION, MODEL_OPTIONS, tlsSetting, wholeNumber } from "./flags.js";
import { addOptions, readOptions, usageTerms, type OptionTable, type OptionValues } from "./options.js";
import { SANDBOX_OPTIONS } from "./sandbox-flags.js";
import { CLIENT_TOKEN, tokenOptions, WORKER_TOKEN } from "./token-flags.js";
import { TRUST_HELP, TRUST_OPTIONS } from "./trust-flags.js";

// Each command's options, in the order help lists them. Command modules load only when run, so
// that help and the light commands start without the server, the worker or the terminal client.

export const START_OPTIONS = {
  demo: { help: "work on a demo project created in a temporary folder" },
  ...LOCAL_OPTIONS,
  ...MODE_OPTION,
} as const satisfies OptionTable;

export const CONNECT_OPTIONS = {
  server: { value: "URL", help: "the server, ws:// or wss://", required: true },
  ...tokenOptions(CLIENT_TOKEN),
  session: { value: "ID", help: "join this session" },
  worker: { value: "ID", help: "start a session on this worker" },
  ...MODE_OPTION,
  ...TRUST_OPTIONS,
} as const satisfies OptionTable;

export const RUN_OPTIONS = {
  prompt: { value: "TEXT", help: "what to ask the model", required: true },
  ...MODE_OPTION,
  json: { help: "write every event as a JSON line (text deltas joined)" },
  wait: { help: "without a terminal: wait for another client (the browser console, the Telegram bot, ...) to answer what asks, instead of exiting 4" },
  ...LOCAL_OPTIONS,
  server: { value: "URL", help: "run on this server instead of one started here" },
  ...tokenOptions({ ...CLIENT_TOKEN, help: "with --server: a client token of the server" }),
  worker: { value: "ID", help: "with --server: the worker to run the session on" },
  ...TRUST_OPTIONS,
} as const satisfies OptionTable;

export const SERVER_OPTIONS = {
  config: { value: "FILE", help: "the server's config (JSONC); reloaded when it changes (docs/operations.md)" },
  port: { value: "N", help: "the port (0 picks a free one)", env: "GATEHOUSE_PORT", parse: wholeNumber },
  host: { value: "HOST", help: "the address to listen on", env: "GATEHOUSE_HOST" },
  tls: {
    value: "TLS",
    help: "auto (TLS off loopback), self-signed, off, or CERT,KEY (PEM files); over the config's tls",
    env: "GATEHOUSE_TLS",
    parse: tlsSetting,
  },
  "data-dir": LOCAL_OPTIONS["data-dir"],
  postgres: { value: "URL", help: "keep state in this PostgreSQL database, which several servers can share", env: "GATEHOUSE_POSTGRES_URL" },
  scenario: LOCAL_OPTIONS.scenario,
  "approval-timeout-ms": { value: "N", help: "pending approvals time out after N ms", parse: wholeNumber },
  store: {
    value: "STORE",
    help: "where state is kept: embedded (SQLite in the data directory, the default), embedded:FILE or memory; --postgres for PostgreSQL",
    env: "GATEHOUSE_STORE",
  },
  ...MODEL_OPTIONS,
} as const satisfies OptionTable;

export const AUDIT_OPTIONS = {
  server: { value: "URL", help: "the server, ws:// or wss://", required: true },
  ...tokenOptions({ ...CLIENT_TOKEN, help: "an admin token of the server" }),
  session: { value: "ID", help: "entries of this session" },
  worker: { value: "ID", help: "entries of this worker" },
  tool: { value: "NAME", help: "entries of this tool" },
  action: { value: "ACTION", help: "allow, deny, ask, approved, denied, cancelled, timed_out or user_shell" },
  by: { value: "NAME", help: "answers given by this token's name" },
  since: { value: "TIME", help: "entries at or after this ISO 8601 time" },
  until: { value: "TIME", help: "entries before this ISO 8601 time" },
  limit: { value: "N", help: "the newest N entries (default 1000)", parse: wholeNumber },
  json: { help: "one JSON object a line" },
  ...TRUST_OPTIONS,
} as const satisfies OptionTable;

export const WORKER_OPTIONS = {
  server: { value: "URL", help: "the server to register with", required: true },
  ...tokenOptions(WORKER_TOKEN),
  id: { value: "ID", help: "the worker's id", required: true },
  dir: { value: "DIR", help: "the folder its tool calls work in (default: here)" },
  mcp: LOCAL_OPTIONS.mcp,
  protect: { value: "PATH", help: "a path of this machine no tool may read or write (a server's data directory here, say)", multiple: true },
  agents: { value: "DIR", help: "agent files whose rules may widen the worker's (outside --dir; docs/agents.md)" },
  ...TRUST_OPTIONS,
  ...SANDBOX_OPTIONS,
} as const satisfies OptionTable;

export const TELEGRAM_OPTIONS = {
  server: { value: "URL", help: "the Gatehouse server, ws://HOST:PORT", required: true },
  ...tokenOptions({ ...CLIENT_TOKEN, help: "the client token the listed users act with" }),
  users: { value: "IDS", help: "the Telegram user ids who may use the bot, separated by commas", env: "GATEHOUSE_TELEGRAM_USERS" },
  config: { value: "FILE", help: "bot settings, or a server config with a telegram section (docs/telegram.md)" },
  state: { value: "FILE", help: "where the bot keeps its state (default: ~/.gatehouse/telegram-state.json)" },
  "api-root": { value: "URL", help: "the Telegram Bot API's address" },
  ...TRUST_OPTIONS,
} as const satisfies OptionTable;

export const RULES_OPTIONS = {
  rules: { value: "FILE", help: "the permissions file", required: true },
  cwd: { value: "DIR", help: "the working directory calls are judged in (default: here)" },
  ...MODE_OPTION,
  protect: { value: "PATH", help: "a path no tool may read or write", multiple: true },
} as const satisfies OptionTable;

export const EXPLAIN_OPTIONS = {
  ...RULES_OPTIONS,
  tool: { value: "NAME", help: "the tool called", required: true },
  args: { value: "JSON", help: "its arguments, a JSON object", required: true },
} as const satisfies OptionTable;

const MODELS_HELP = `models: --model openai:gpt-4o, anthropic:claude-sonnet-4-5, ollama:qwen2.5-coder, ... (docs/models.md)`;
const EXIT_HELP = `exit codes: 0 done, 1 an error, 2 bad arguments, a bad configuration or a rules file that does not parse or validate`;
const RUN_EXIT_HELP =
  "exit codes: 0 the turn completed, 1 an error, 2 bad arguments or no model configured, 3 a call was denied, " +
  "4 a call asked and nobody could answer it here (no terminal and no --wait; the turn is aborted)";

interface CommandSpec<T extends OptionTable> {
  name: string;
  summary: string;
  /** Longer help than the summary, shown by `gatehouse COMMAND --help`. */
  description?: string;
  options: T;
  /** Positional arguments, as commander declares them (`[FILE]`). */
  args?: string[];
  footer?: string;
  run(values: OptionValues<T>, args: string[]): Promise<number>;
}

function define<T extends OptionTable>(parent: Command, spec: CommandSpec<T>, done: (exitCode: number) => void): Command {
  const command = parent
    .command(spec.name)
    .summary(spec.summary)
    .description(spec.description ?? spec.summary);
  command.usage(usageTerms(spec.options, spec.args ?? []));
  for (const arg of spec.args ?? []) command.argument(arg);
  addOptions(command, spec.options);
  if (spec.footer) command.addHelpText("after", `\n${spec.footer}`);
  command.action(async (...params: unknown[]) => {
    const args = params.slice(0, spec.args?.length ?? 0).filter((a): a is string => typeof a === "string");
    done(await spec.run(readOptions(command, spec.options), args));
  });
  return command;
}

/**
 * The CLI's commands. `done` receives the exit code of the command that ran; errors are thrown
 * (commander's as CommanderError) for the caller to report.
 */
export function buildProgram(done: (exitCode: number) => void): Command {
  const program = new Command("gatehouse")
    .description(
      "A server and a worker on DIR (default: here; --demo: a demo project it creates) and the terminal client; " +
        "with no model configured, the scripted model plays a demo tour.",
    )
    .usage(usageTerms(START_OPTIONS, []))
    .enablePositionalOptions()
    .helpCommand(true)
    .allowExcessArguments()
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .configureHelp({ styleTitle: (title) => title.toLowerCase(), sortSubcommands: false });
  addOptions(program, START_OPTIONS);
  program.addHelpText("after", `\nRun "gatehouse COMMAND --help" for a command's options.\n${MODELS_HELP}\n${EXIT_HELP}`);
  program.action(async () => {
    if (program.args.length > 0) throw new CliError(`unknown command "${program.args[0]}"`);
    done(await (await import("./commands/start.js")).startCommand(readOptions(program, START_OPTIONS)));
  });

  define(
    program,
    {
      name: "connect",
      summary: "the terminal client on a remote server",
      description: "The terminal client on a remote server: joins --session ID, or starts a session on --worker ID.",
      options: CONNECT_OPTIONS,
      footer: TRUST_HELP,
      run: async (values) => (await import("./commands/connect.js")).connectCommand(values),
    },
    done,
  );
  define(
    program,
    {
      name: "run",
      summary: "one turn without the terminal client, for scripts",
      description:
        "One turn without the terminal client, printed as lines (or JSON lines). On a terminal, what asks is asked there " +
        "(y approves once; another client may answer it too). Without a terminal (stdin or stderr not a TTY), the mode is " +
        "strict unless --mode or --wait says otherwise, so what would ask is denied; in another mode a call that asks " +
        "aborts the turn and exits 4, unless --wait waits for another client to answer it (the mode is then default). " +
        "With no model configured, a --scenario is needed.",
      options: RUN_OPTIONS,
      footer: `${RUN_EXIT_HELP}\n${TRUST_HELP}`,
      run: async (values) => (await import("./commands/run.js")).runCommand(values),
    },
    done,
  );
  define(
    program,
    {
      name: "server",
      summary: "runs the server (tRPC over WebSocket and HTTP on one port)",
      description:
        "Runs the server (tRPC over WebSocket and HTTP on one port) until SIGINT or SIGTERM. Flags (and their environment variables) " +
        "override the config file, which overrides the defaults.",
      options: SERVER_OPTIONS,
      run: async (values) => (await import("./commands/server.js")).serverCommand(values),
    },
    done,
  );
  define(
    program,
    {
      name: "worker",
      summary: "registers with a server and runs its tool calls in DIR",
      options: WORKER_OPTIONS,
      footer: TRUST_HELP,
      run: async (values) => (await import("./commands/worker.js")).workerCommand(values),
    },
    done,
  );
  define(
    program,
    {
      name: "audit",
      summary: "the server's audit log of decisions and answers, filtered",
      options: AUDIT_OPTIONS,
      footer: TRUST_HELP,
      run: async (values) => (await import("./commands/audit.js")).auditCommand(values),
    },
    done,
  );
  define(
    program,
    {
      name: "token",
      summary: 'a new random token and its tokenHash for the config; "hash" hashes a token read from stdin',
      options: {},
      args: ["[hash]"],
      run: async (_values, args) => (await import("./commands/token.js")).tokenCommand(args),
    },
    done,
  );
  define(
    program,
    {
      name: "telegram",
      summary: "the Telegram bot; its token from TELEGRAM_BOT_TOKEN (docs/telegram.md)",
      options: TELEGRAM_OPTIONS,
      footer: TRUST_HELP,
      run: async (values) => (await import("./commands/telegram.js")).telegramCommand(values),
    },
    done,
  );

  const permissions = program
    .command("permissions")
    .summary("check a permissions file: eval, explain, lint")
    .usage("COMMAND")
    .allowExcessArguments()
    .action(() => {
      const [name] = permissions.args;
      throw new CliError(name ? `unknown command "permissions ${name}"` : "missing command: gatehouse permissions eval|explain|lint");
    });
  define(
    permissions,
    {
      name: "eval",
      summary: 'reads {"tool": ..., "args": {...}} JSON lines on stdin, writes one decision per line',
      options: RULES_OPTIONS,
      run: async (values) => {
        const [{ permissionsEval }, { rulesContext }] = await Promise.all([import("./commands/permissions-eval.js"), import("./rules-context.js")]);
        return permissionsEval(rulesContext(values), process.stdin, process.stdout);
      },
    },
    done,
  );
  define(
    permissions,
    {
      name: "explain",
      summary: "one decision written for a person: each sub-command, the rule and layer, and why",
      options: EXPLAIN_OPTIONS,
      run: async (values) => {
        const [{ permissionsExplain }, { rulesContext }] = await Promise.all([import("./commands/permissions-explain.js"), import("./rules-context.js")]);
        process.stdout.write(`${await permissionsExplain(rulesContext(values), values.tool, values.args)}\n`);
        return 0;
      },
    },
    done,
  );
  define(
    permissions,
    {
      name: "lint",
      summary: "errors with line:col, warnings for shadowed rules and patterns that never match",
      options: {},
      args: ["[FILE]"],
      run: async (_values, [file]) => {
        const result = (await import("./commands/permissions-lint.js")).permissionsLint(file);
        for (const line of result.stdout) process.stdout.write(`${line}\n`);
        for (const line of result.stderr) process.stderr.write(`${line}\n`);
        return result.exitCode;
      },
    },
    done,
  );
  return program;
}
