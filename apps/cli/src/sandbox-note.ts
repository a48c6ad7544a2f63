import type { SandboxInfo } from "@gatehouse/protocol";

/** One sentence for a banner: how the worker confines shell commands. */
export function sandboxNote(info: SandboxInfo | null | undefined): string {
  if (!info) return "Sandbox: unknown (the worker did not say).";
  if (info.active) return `Sandbox: shell commands run in bubblewrap${networkNote(info)}.`;
  return `Sandbox: OFF (${info.detail}).`;
}

function networkNote(info: SandboxInfo): string {
  if (!info.network) return " without network";
  return info.egress === "host" ? " with the host's whole network" : "";
}
