import { describe } from "vitest";
import { itGivesEveryErrorItsOwnCode } from "../../../test/support/error-codes.js";
import * as errors from "../src/errors.js";

describe("the worker's errors", () => {
  itGivesEveryErrorItsOwnCode(errors, {
    ToolRefusedError: [new errors.ToolRefusedError("refused")],
    PathsMovedError: [new errors.PathsMovedError({ "/w/notes.txt": { real: "/w/.git/config" } })],
    SandboxRefusedError: [new errors.SandboxRefusedError("refused")],
    SandboxUnavailableError: [new errors.SandboxUnavailableError("unavailable")],
    TreeTooLargeError: [new errors.TreeTooLargeError("too large")],
    AgentsFolderRefusedError: [new errors.AgentsFolderRefusedError("refused")],
    FrontMatterError: [new errors.FrontMatterError("front matter")],
    PatternRefusedError: [new errors.PatternRefusedError("TOO_SLOW", "slow"), new errors.PatternRefusedError("THREAD_FAILED", "failed")],
    ProxyProtocolError: [new errors.ProxyProtocolError("not a request")],
    WriteIncompleteError: [new errors.WriteIncompleteError("left as it was")],
    McpConfigError: [new errors.McpConfigError("mcp.jsonc", 1, 1, "", "syntax error")],
    McpTransportError: [
      new errors.McpTransportError("ALREADY_STARTED", "started"),
      new errors.McpTransportError("NOT_RUNNING", "not running"),
      new errors.McpTransportError("PROGRAM_NOT_FOUND", "spawn x ENOENT"),
    ],
  });
});
