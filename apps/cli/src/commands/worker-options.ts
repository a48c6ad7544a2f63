// The options of `gatehouse worker`, in the order help lists them; light, so that help loads without the command.
import { LOCAL_OPTIONS } from "../flags.js";
import { SANDBOX_OPTIONS } from "../sandbox-flags.js";
import { tokenOptions, WORKER_TOKEN } from "../token-flags.js";
import { TRUST_OPTIONS } from "../trust-flags.js";
import type { OptionTable } from "../options.js";

export const WORKER_OPTIONS = {
  server: { value: "URL", help: "the server to register with", required: true },
  ...tokenOptions(WORKER_TOKEN),
  id: { value: "ID", help: "the worker's id", required: true },
  dir: { value: "DIR", help: "the folder its tool calls work in (default: here)" },
  mcp: LOCAL_OPTIONS.mcp,
  protect: { value: "PATH", help: "a path of this machine no tool may read or write (a server's data directory here, say)", multiple: true },
  agents: { value: "DIR", help: "agent files whose rules may widen the worker's (outside --dir; docs/agents.md)" },
  ...TRUST_OPTIONS,
  ...SANDBOX_OPTIONS,
} as const satisfies OptionTable;
