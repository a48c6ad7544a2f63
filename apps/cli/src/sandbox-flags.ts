import { SANDBOX_FALLBACKS, SANDBOX_MODES, type SandboxFallback, type SandboxMode, type SandboxSettings } from "@gatehouse/worker";
import { CliError } from "./cli-error.js";

/** The worker's sandbox flags: `--sandbox required|auto|off`, `--sandbox-fallback fail|no-shell`, `--network on|off`. */
export const SANDBOX_FLAGS = {
  sandbox: { type: "string" },
  "sandbox-fallback": { type: "string" },
  network: { type: "string" },
} as const;

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`--${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
  return value as T;
}

/** The sandbox settings from the flags, else the environment, else `auto` with network on. */
export function sandboxSettings(
  values: { sandbox?: string | undefined; "sandbox-fallback"?: string | undefined; network?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): SandboxSettings {
  const mode = oneOf<SandboxMode>("sandbox", values.sandbox ?? env.GATEHOUSE_SANDBOX ?? "auto", SANDBOX_MODES);
  const fallback = oneOf<SandboxFallback>("sandbox-fallback", values["sandbox-fallback"] ?? env.GATEHOUSE_SANDBOX_FALLBACK ?? "fail", SANDBOX_FALLBACKS);
  const network = oneOf("network", values.network ?? env.GATEHOUSE_SANDBOX_NETWORK ?? "on", ["on", "off"] as const) === "on";
  return { mode, fallback, network };
}
