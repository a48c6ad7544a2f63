import crypto from "node:crypto";

/** What model APIs accept as a tool name (OpenAI and Anthropic alike). */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX = 64;

/**
 * `{server}_{tool}` in the characters model APIs accept: anything else becomes `_`. A name over
 * 64 characters is cut and ends in a short hash of the tool's own name, so it stays the same
 * from one start to the next.
 */
export function qualifiedName(server: string, tool: string): string {
  const name = `${server}_${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (name.length <= MAX) return name;
  const hash = crypto.createHash("sha256").update(tool).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX - hash.length - 1)}_${hash}`;
}

export interface Named<T> {
  name: string;
  item: T;
}

/**
 * Names a server's tools. A name that two of its tools would share, or that a built-in tool
 * already has, is given to none of them: rules written for one must never reach another.
 */
export function nameTools<T>(
  server: string,
  tools: readonly { name: string; item: T }[],
  reserved: ReadonlySet<string>,
): { named: Named<T>[]; refused: string[] } {
  const byName = new Map<string, { name: string; item: T }[]>();
  for (const t of tools) {
    const q = qualifiedName(server, t.name);
    byName.set(q, [...(byName.get(q) ?? []), t]);
  }
  const named: Named<T>[] = [];
  const refused: string[] = [];
  for (const [q, group] of byName) {
    if (reserved.has(q))
      refused.push(`${q} (tool ${JSON.stringify(group[0]!.name)} of MCP server ${server}) is the name of a built-in tool: not offered; rename the server`);
    else if (group.length > 1)
      refused.push(
        `${q} would name ${group.length} tools of MCP server ${server} (${group.map((g) => JSON.stringify(g.name)).join(", ")}): none of them is offered`,
      );
    else named.push({ name: q, item: group[0]!.item });
  }
  return { named, refused };
}
