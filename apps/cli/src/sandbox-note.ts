import type { SandboxInfo } from "@gatehouse/protocol";

/** One sentence for a banner: how the worker confines shell commands. */
export function sandboxNote(info: SandboxInfo | null | undefined): string {
  if (!info) return "Sandbox: unknown (the worker did not say).";
  if (info.active) return `Sandbox: shell commands run in bubblewrap${info.network ? "" : " without network"}.`;
  return `Sandbox: OFF (${info.detail}).`;
}
