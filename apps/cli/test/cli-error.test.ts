import { describe, expect, it } from "vitest";
import { itGivesEveryErrorItsOwnCode } from "../../../test/support/error-codes.js";
import * as errors from "../src/cli-error.js";

describe("the CLI's errors", () => {
  itGivesEveryErrorItsOwnCode(errors, { CliError: [new errors.CliError("missing token"), new errors.CliError("cannot reach the server", "FAILED")] });

  it("ends the CLI with 2 for a usage problem, 1 for a command that failed", () => {
    expect(new errors.CliError("give --session ID").exitCode).toBe(2);
    expect(new errors.CliError("cannot reach the server", "FAILED").exitCode).toBe(1);
  });
});
