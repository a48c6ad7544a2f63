import { parseArgs } from "node:util";
import { LogSettingError } from "@gatehouse/log";
import { RulesFileError } from "@gatehouse/policy";
import { GatehouseError } from "@gatehouse/server";
import { CliError } from "./cli-error.js";
import { permissionsEval } from "./commands/permissions-eval.js";
import { permissionsExplain } from "./commands/permissions-explain.js";
import { permissionsLint } from "./commands/permissions-lint.js";
import { connectCommand } from "./commands/connect.js";
import { runCommand } from "./commands/run.js";
import { serverCommand } from "./commands/server.js";
import { startCommand } from "./commands/start.js";
import { tokenCommand } from "./commands/token.js";
import { telegramCommand } from "./commands/telegram.js";
import { workerCommand } from "./commands/worker.js";
import { RULES_FLAGS, rulesContext } from "./rules-context.js";

export const USAGE = `usage: gatehouse [--demo] [--dir DIR] [--model PROVIDER:MODEL] [--scenario FILE] [--mode MODE] [--data-dir DIR] [--mcp FILE]

          a server and a worker on DIR (default: here; --demo: a demo project it creates) and the
          terminal client; with no model configured, the scripted model plays a demo tour

usage: gatehouse <command>

  connect --server URL --token T (--session ID | --worker ID) [--mode MODE]
          the terminal client on a remote server
  run     --prompt TEXT [--mode MODE] [--json] [--dir DIR] [--model PROVIDER:MODEL] [--scenario FILE] [--mcp FILE]
          [--server URL --token T --worker ID]
          one turn without the terminal client; asks are denied without a TTY (strict mode)
          exit codes: 0 the turn completed, 3 a call was denied, 1 an error
  server  [--config FILE] [--port N] [--host H] [--data-dir DIR] [--model PROVIDER:MODEL] [--scenario FILE]
          [--approval-timeout-ms N]
          runs the server (tRPC over WebSocket and HTTP on one port)
  worker  --server URL --token T --id ID [--dir DIR] [--mcp FILE]
          registers with a server and runs its tool calls in DIR; FILE lists MCP servers (docs/mcp.md)
  token   [hash]
          a new random token and its tokenHash for the config; "hash" hashes a token read from stdin
  telegram --server URL --token T --users ID[,ID...] [--config FILE] [--state FILE] [--api-root URL] [trust flags]
          the Telegram bot; its token from TELEGRAM_BOT_TOKEN (docs/telegram.md)

trust (connect, run --server, worker, telegram): wss:// servers are verified by --ca FILE, else by the public CAs,
        else by their certificate's fingerprint: --fingerprint SHA256, or pinned on first use in
        --known-servers FILE (default ~/.gatehouse/known_servers); a changed certificate is refused.
        Plain ws:// only to loopback unless --allow-plain. Environment: GATEHOUSE_CA,
        GATEHOUSE_FINGERPRINT, GATEHOUSE_KNOWN_SERVERS, GATEHOUSE_ALLOW_PLAIN=1

usage: gatehouse permissions <command>

  eval    --rules FILE [--cwd DIR] [--mode MODE] [--protect DIR]...
          reads {"tool": ..., "args": {...}} JSON lines on stdin, writes one decision per line
  explain --rules FILE --tool NAME --args JSON [--cwd DIR] [--mode MODE] [--protect DIR]...
          one decision written for a person: each sub-command, the rule and layer, and why
  lint    FILE
          errors with line:col, warnings for shadowed rules and patterns that never match

models: --model openai:gpt-4o, anthropic:claude-sonnet-4-5, ollama:qwen2.5-coder, ... (docs/models.md);
        --base-url URL and --api-key-env NAME set the model's endpoint and the variable holding its key;
        GATEHOUSE_MODEL, GATEHOUSE_BASE_URL and GATEHOUSE_API_KEY_ENV do the same from the environment
modes: default, accept-edits, read-only, yolo, strict
exit codes: 0 done, 2 bad arguments or a rules file that does not parse or validate`;

async function permissions(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "lint") {
    const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
    const result = permissionsLint(positionals[0]);
    for (const l of result.stdout) process.stdout.write(`${l}\n`);
    for (const l of result.stderr) process.stderr.write(`${l}\n`);
    return result.exitCode;
  }
  if (command === "eval") {
    const { values } = parseArgs({ args: rest, options: RULES_FLAGS });
    return permissionsEval(rulesContext(values), process.stdin, process.stdout);
  }
  if (command === "explain") {
    const { values } = parseArgs({ args: rest, options: { ...RULES_FLAGS, tool: { type: "string" }, args: { type: "string" } } });
    process.stdout.write(`${await permissionsExplain(rulesContext(values), values.tool, values.args)}\n`);
    return 0;
  }
  throw new CliError(command ? `unknown command "permissions ${command}"\n${USAGE}` : USAGE);
}

/** Runs the CLI and returns its exit code; every expected failure is one line on stderr. */
export async function main(argv: string[]): Promise<number> {
  try {
    const [group, ...rest] = argv;
    if (group === "permissions") return await permissions(rest);
    if (group === "server") return await serverCommand(rest);
    if (group === "worker") return await workerCommand(rest);
    if (group === "connect") return await connectCommand(rest);
    if (group === "token") return await tokenCommand(rest);
    if (group === "run") return await runCommand(rest);
    if (group === "telegram") return await telegramCommand(rest);
    if (group === "--help" || group === "-h" || group === "help") {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (group === undefined || group.startsWith("--")) return await startCommand(argv);
    throw new CliError(`unknown command "${group}"\n${USAGE}`);
  } catch (err) {
    if (err instanceof RulesFileError) process.stderr.write(`${err.message}\n`);
    else if (err instanceof CliError || err instanceof LogSettingError) process.stderr.write(`gatehouse: ${err.message}\n`);
    else if ((err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) process.stderr.write(`gatehouse: ${(err as Error).message}\n${USAGE}\n`);
    else if (err instanceof GatehouseError) process.stderr.write(`gatehouse: ${err.message}\n`);
    else {
      process.stderr.write(`gatehouse: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
      return 1;
    }
    return err instanceof CliError ? err.exitCode : 2;
  }
}
