import { parse as parseYaml } from "yaml";
import { FrontMatterError } from "./errors.js";

/** Splits a Markdown file into its YAML front matter (between `---` lines at the top) and its body. */
export function splitFrontMatter(text: string): { data: Record<string, unknown>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { data: {}, body: text };
  let data: unknown;
  try {
    data = parseYaml(m[1]!);
  } catch (err) {
    throw new FrontMatterError(`front matter: ${(err as Error).message.split("\n")[0]}`);
  }
  if (data !== null && data !== undefined && (typeof data !== "object" || Array.isArray(data)))
    throw new FrontMatterError("front matter: must be a mapping of fields");
  return { data: (data ?? {}) as Record<string, unknown>, body: text.slice(m[0].length) };
}
