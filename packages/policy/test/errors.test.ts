import { describe } from "vitest";
import { itGivesEveryErrorItsOwnCode } from "../../../test/support/error-codes.js";
import * as errors from "../src/errors.js";

describe("the policy package's errors", () => {
  itGivesEveryErrorItsOwnCode(errors, {
    PolicyError: [new errors.PolicyError("SHELL_PARSER_NOT_READY", "not loaded"), new errors.PolicyError("APPEND_FAILED", "locked")],
    RulesFileError: (["RULES_PARSE", "RULES_INVALID", "RULES_IO"] as const).map((code) => new errors.RulesFileError(code, "permissions.jsonc", 1, 1, "wrong")),
  });
});
