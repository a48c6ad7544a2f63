import { Command } from "commander";
import { CliError } from "./cli-error.js";
import type { CliIo } from "./cli-io.js";
import { START_OPTIONS } from "./commands/start-options.js";
import { CONNECT_OPTIONS } from "./commands/connect-options.js";
import { RUN_OPTIONS } from "./commands/run-options.js";
import { SERVER_OPTIONS } from "./commands/server-options.js";
import { AUDIT_OPTIONS } from "./commands/audit-options.js";
import { WORKER_OPTIONS } from "./commands/worker-options.js";
import { TELEGRAM_OPTIONS } from "./commands/telegram-options.js";
import { EXPLAIN_OPTIONS, RULES_OPTIONS } from "./commands/permissions-options.js";
import { addOptions, readOptions, usageTerms, type OptionTable, type OptionValues } from "./options.js";
import { TRUST_HELP } from "./trust-flags.js";

// Command modules load only when run, so that help and the light commands start without the
// server, the worker or the terminal client; each command's options live beside it, in a light file.

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
 * (commander's as CommanderError) for the caller to report. Help and the permissions commands
 * read and write `io`; the long-running commands use the process's streams.
 */
export function buildProgram(done: (exitCode: number) => void, io: CliIo): Command {
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
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text), outputError: () => undefined })
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
        return permissionsEval(rulesContext(values), io.stdin, io.stdout);
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
        io.stdout.write(`${await permissionsExplain(rulesContext(values), values.tool, values.args)}\n`);
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
        for (const line of result.stdout) io.stdout.write(`${line}\n`);
        for (const line of result.stderr) io.stderr.write(`${line}\n`);
        return result.exitCode;
      },
    },
    done,
  );
  return program;
}
