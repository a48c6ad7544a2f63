import { SANDBOX_FALLBACKS, SANDBOX_MODES } from "@gatehouse/worker/sandbox";
import type { OptionTable } from "./options.js";

/** The worker's sandbox options: `--sandbox required|auto|off`, `--sandbox-fallback fail|no-shell`, `--network on|off|host`. */
export const SANDBOX_OPTIONS = {
  sandbox: { value: "MODE", help: "how shell commands are confined (default: auto)", choices: SANDBOX_MODES, env: "GATEHOUSE_SANDBOX" },
  "sandbox-fallback": {
    value: "WHAT",
    help: "with --sandbox required and no sandbox: refuse to start, or serve without shell_exec (default: fail)",
    choices: SANDBOX_FALLBACKS,
    env: "GATEHOUSE_SANDBOX_FALLBACK",
  },
  network: {
    value: "ON_OFF_HOST",
    help: "sandboxed commands' network: on (through the worker's proxy under the network rules; default), off, or host (the host's whole network)",
    choices: ["on", "off", "host"],
    env: "GATEHOUSE_SANDBOX_NETWORK",
  },
} as const satisfies OptionTable;
