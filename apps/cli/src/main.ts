import { CommanderError } from "commander";
import { CliError } from "./cli-error.js";
import { PROCESS_IO, type CliIo } from "./cli-io.js";
import { buildProgram } from "./program.js";

/**
 * Whether `err` is one of the failures that are the user's to fix (exit 2) besides the CLI's own.
 * Their classes load only once something failed, each after the one before did not match.
 */
async function isUserError(err: unknown): Promise<boolean> {
  if (err instanceof (await import("@gatehouse/log")).LogSettingError) return true;
  return err instanceof (await import("@gatehouse/server")).GatehouseError;
}

/** A commander message as a sentence: "error: unknown option '--x'" becomes "Unknown option '--x'". */
function commanderMessage(err: CommanderError): string {
  const text = err.message.replace(/^error: /, "");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

async function report(err: unknown, stderr: NodeJS.WritableStream): Promise<number> {
  if (err instanceof CommanderError) {
    if (err.exitCode === 0) return 0;
    stderr.write(`gatehouse: ${commanderMessage(err)}\n(gatehouse --help lists the commands; gatehouse COMMAND --help its options)\n`);
    return 2;
  }
  if (err instanceof CliError) {
    stderr.write(`gatehouse: ${err.message}\n`);
    return err.exitCode;
  }
  // A rules file error starts with FILE:LINE:COL, which editors and scripts look for at the line's start.
  if (err instanceof (await import("@gatehouse/policy")).RulesFileError) stderr.write(`${err.message}\n`);
  else if (await isUserError(err)) stderr.write(`gatehouse: ${(err as Error).message}\n`);
  else {
    stderr.write(`gatehouse: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
  return 2;
}

/** Runs the CLI and returns its exit code; every expected failure is one line on `io.stderr`. */
export async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((code) => (exitCode = code), io);
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (err) {
    return report(err, io.stderr);
  }
}
