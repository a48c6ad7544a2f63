import { compileHostPattern } from "./host-pattern.js";

/** What "always" offers for a connection `host:port`: the host, any port (the person may edit it). */
export function networkSuggestion(subject: string): string[] {
  const host = subject.replace(/:\d+$/, "").replace(/^\[(.*)\]$/, "$1");
  return overbroadHost(host) === null ? [host] : [];
}

/** Why a network pattern may not be saved by an answer: it is not a host pattern, or it matches every host. */
export function overbroadHost(pattern: string): string | null {
  const compiled = compileHostPattern(pattern);
  if ("error" in compiled) return compiled.error;
  const host = pattern.replace(/:(\d+|\*)$/, "");
  if (compiled.kind === "any" || host.replace(/[*?.[\]]/g, "") === "") return `"${pattern}" matches every host`;
  return null;
}
