import { spawnSync } from "node:child_process";
import type { SandboxInfo } from "@gatehouse/protocol";
import { SandboxUnavailableError } from "../errors.js";
import { procOptions } from "./proc-options.js";
import { keyringFilter } from "./seccomp-filter.js";

export const SANDBOX_MODES = ["required", "auto", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** What a worker does when `required` finds no working sandbox: refuse to start, or serve without shell_exec. */
export const SANDBOX_FALLBACKS = ["fail", "no-shell"] as const;
export type SandboxFallback = (typeof SANDBOX_FALLBACKS)[number];

export const BWRAP = "bwrap";

/**
 * Why bubblewrap cannot sandbox a command here, or null when it can: it runs a command with the
 * same namespaces, mounts and seccomp filter a real call uses, so a kernel without user
 * namespaces or seccomp, an architecture the filter does not know, or a missing binary shows up
 * now rather than on the first call.
 */
export function bubblewrapProblem(): string | null {
  let filter: Buffer;
  try {
    filter = keyringFilter();
  } catch (err) {
    return (err as Error).message;
  }
  // The filter on standard input, which bubblewrap reads whole before `true` starts.
  const options = ["--ro-bind", "/", "/", "--dev", "/dev", ...procOptions(), "--tmpfs", "/tmp", "--unshare-pid", "--unshare-ipc", "--unshare-uts"];
  const probe = spawnSync(BWRAP, [...options, "--new-session", "--die-with-parent", "--cap-drop", "ALL", "--seccomp", "0", "--", "true"], {
    input: filter,
    encoding: "utf8",
    timeout: 10_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  if (probe.error) {
    const missing = (probe.error as NodeJS.ErrnoException).code === "ENOENT";
    return missing ? "bwrap is not installed (apt-get install bubblewrap)" : `bwrap could not run: ${probe.error.message}`;
  }
  if (probe.status !== 0) return `bwrap fails here: ${(probe.stderr || `exit status ${probe.status}`).trim().split("\n")[0]}`;
  return null;
}

export interface SandboxSettings {
  mode: SandboxMode;
  network: boolean;
  /** With network on: through the worker's proxy under the rules (the default), or the host's own network. */
  egress?: "proxy" | "host";
  fallback?: SandboxFallback;
}

/**
 * The sandbox this worker runs with. `required` without a working bubblewrap throws (or, with the
 * `no-shell` fallback, comes back inactive and the worker drops shell_exec); `auto` comes back
 * inactive with the reason, which the worker says loudly.
 */
export function resolveSandbox(settings: SandboxSettings, problem: () => string | null = bubblewrapProblem): SandboxInfo {
  const { mode, network } = settings;
  const egress = network ? (settings.egress ?? "proxy") : undefined;
  const base = { mode, network, ...(egress ? { egress } : {}) };
  if (mode === "off") return { ...base, active: false, detail: "off by the worker's setting: shell_exec runs without the OS sandbox" };
  const why = problem();
  if (why === null) return { ...base, active: true, detail: `bubblewrap, ${networkWords(egress)}` };
  if (mode === "required" && settings.fallback !== "no-shell") throw new SandboxUnavailableError(`the sandbox is required but ${why}`);
  if (mode === "required") return { ...base, active: false, detail: `${why}: shell_exec is not offered` };
  return { ...base, active: false, detail: `${why}: shell_exec runs WITHOUT the OS sandbox` };
}

function networkWords(egress: "proxy" | "host" | undefined): string {
  if (!egress) return "no network";
  return egress === "proxy" ? "network through the worker's proxy under the rules" : "the host's whole network (--network host)";
}
