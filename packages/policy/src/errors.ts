export type PolicyErrorCode = "RULES_PARSE" | "RULES_INVALID" | "RULES_IO" | "SHELL_PARSER_NOT_READY" | "APPEND_FAILED";

export class PolicyError extends Error {
  constructor(
    readonly code: PolicyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "PolicyError";
  }
}

/** A rules file problem, located in the file so an operator can go straight to it. */
export class RulesFileError extends PolicyError {
  constructor(
    code: "RULES_PARSE" | "RULES_INVALID" | "RULES_IO",
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super(code, `${file}:${line}:${column}: ${detail}`);
    this.name = "RulesFileError";
  }
}
