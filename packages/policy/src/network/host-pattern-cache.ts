import { compileHostPattern, type HostPattern } from "./host-pattern.js";

const compiled = new Map<string, HostPattern | null>();

/** A rule pattern compiled as a host pattern, remembered; null when it is not one (such a rule matches no connection). */
export function hostPattern(pattern: string): HostPattern | null {
  let found = compiled.get(pattern);
  if (found === undefined) {
    const made = compileHostPattern(pattern);
    found = "error" in made ? null : made;
    if (compiled.size < 4096) compiled.set(pattern, found);
  }
  return found;
}
