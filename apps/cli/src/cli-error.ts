/** What went wrong, by the exit code it ends the CLI with: how it was called or what it was given (2), or the command failed (1). */
export type CliErrorCode = "USAGE" | "FAILED";

/** A problem with how the CLI was called or what it was given, or a command that failed; printed as one line. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly code: CliErrorCode = "USAGE",
  ) {
    super(message);
  }

  get exitCode(): number {
    return this.code === "USAGE" ? 2 : 1;
  }
}
