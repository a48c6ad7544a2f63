import { describe } from "vitest";
import { itGivesEveryErrorItsOwnCode } from "../../../test/support/error-codes.js";
import * as fsGuard from "../src/index.js";

const CODES = ["NOT_REGULAR", "PSEUDO_FS", "DELETED", "SYMLINK_TO_NOTHING", "TOO_LARGE", "OUTSIDE_FOLDER"] as const;

describe("fs-guard's errors", () => {
  itGivesEveryErrorItsOwnCode(fsGuard, {
    FileRefusedError: CODES.map((code) => new fsGuard.FileRefusedError(code, "refused")),
  });
});
