export const TIERS = ["read", "write", "exec"] as const;
export type Tier = (typeof TIERS)[number];

const DEFAULT_TIERS: ReadonlyMap<string, Tier> = new Map(
  Object.entries({
    read_file: "read",
    glob: "read",
    grep: "read",
    skill: "read",
    write_file: "write",
    edit_file: "write",
    shell_exec: "exec",
    task: "exec",
  } satisfies Record<string, Tier>),
);

/** A tool's tier when it declares none: built-ins as listed, anything else `exec` (docs/design.md, "Tiers, modes and critical patterns"). */
export function defaultTier(tool: string): Tier {
  return DEFAULT_TIERS.get(tool) ?? "exec";
}
