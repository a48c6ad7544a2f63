/** The words the gate, its clients and its workers share; the protocol's schemas are built from these. */

/** The layers a decision can come from (docs/design.md, "Layers"), in evaluation order. */
export const LAYERS = ["agent", "static", "runtime"] as const;
export type Layer = (typeof LAYERS)[number];

/**
 * Who wrote a rule: a person, an approval ("always", "session"), or an agent file the agent itself
 * could have written (`limit`), whose rules can only make a decision stricter.
 */
export const ORIGINS = ["person", "approval", "limit"] as const;
export type Origin = (typeof ORIGINS)[number];

/** How far an approval reaches: this call, this session, or the worker's rules file too. */
export const SCOPES = ["once", "session", "always"] as const;
export type Scope = (typeof SCOPES)[number];

/** The tools whose subject is a file path. */
export const FILE_TOOLS: ReadonlySet<string> = new Set(["read_file", "write_file", "edit_file"]);

/** The file tools that change a file. */
export const FILE_WRITE_TOOLS: ReadonlySet<string> = new Set(["write_file", "edit_file"]);
