import { describe } from "vitest";
import { itGivesEveryErrorItsOwnCode } from "../../../test/support/error-codes.js";
import * as errors from "../src/errors.js";
import type { TrustErrorCode } from "../src/errors.js";

const TRUST: TrustErrorCode[] = ["NOT_TLS", "UNREACHABLE", "PLAIN_TEXT", "SPEAKS_TLS", "FINGERPRINT_MISMATCH", "CERTIFICATE_CHANGED"];

describe("the protocol package's errors", () => {
  itGivesEveryErrorItsOwnCode(errors, {
    UnescapeError: [new errors.UnescapeError("unknown escape \\q")],
    EditedArgumentsError: [new errors.EditedArgumentsError("the edited command is empty")],
    TrustError: TRUST.map((code) => new errors.TrustError(code, "not connecting")),
  });
});
