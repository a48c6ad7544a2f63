import { describe } from "vitest";
import { itGivesEveryErrorItsOwnCode } from "../../../test/support/error-codes.js";
import * as errors from "../src/errors.js";

describe("the Telegram bot's errors", () => {
  itGivesEveryErrorItsOwnCode(errors, {
    TelegramSettingsError: [new errors.TelegramSettingsError("the bot token is missing")],
    BotStateError: [new errors.BotStateError("state.json: not JSON")],
    BotTokenRefusedError: [new errors.BotTokenRefusedError("Telegram refused the bot token (401)")],
  });
});
