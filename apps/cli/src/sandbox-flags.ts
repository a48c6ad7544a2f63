import { SANDBOX_FALLBACKS, SANDBOX_MODES, type SandboxFallback, type SandboxMode } from "@gatehouse/worker/sandbox";
import { SandboxUnavailableError } from "@gatehouse/worker/errors";
import { CliError } from "./cli-error.js";
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

interface SandboxValues {
  sandbox?: SandboxMode | undefined;
  "sandbox-fallback"?: SandboxFallback | undefined;
  network?: "on" | "off" | "host" | undefined;
}

/** The worker's sandbox settings from its options (flags, else their environment variables). */
export function sandboxSettings(values: SandboxValues): { mode: SandboxMode; fallback: SandboxFallback; network: boolean; egress: "proxy" | "host" } {
  const network = values.network ?? "on";
  return {
    mode: values.sandbox ?? "auto",
    fallback: values["sandbox-fallback"] ?? "fail",
    network: network !== "off",
    egress: network === "host" ? "host" : "proxy",
  };
}

/** A worker that would not start without its required sandbox: one line, exit code 1. */
export function sandboxRefusal(err: unknown): unknown {
  return err instanceof SandboxUnavailableError ? new CliError(err.message, "FAILED") : err;
}
