import { describe } from "vitest";
import { itGivesEveryErrorItsOwnCode } from "../../../test/support/error-codes.js";
import * as log from "../src/index.js";

describe("the log package's errors", () => {
  itGivesEveryErrorItsOwnCode(log, { LogSettingError: [new log.LogSettingError("GATEHOUSE_LOG_LEVEL must be one of ...")] });
});
