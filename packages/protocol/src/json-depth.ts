import { z } from "zod";

/**
 * How deep JSON from a connection or a model may nest: objects and arrays within each other. Deeper
 * input would make the recursive code that reads, copies and writes it (JSON.stringify, YAML,
 * structuredClone) overflow the stack; no tool's arguments come near it.
 */
export const MAX_JSON_DEPTH = 64;

/** What is wrong with input that nests too deep, for a message that names where. */
export function nestedTooDeep(limit = MAX_JSON_DEPTH): string {
  return `nested deeper than ${limit} levels of objects and arrays`;
}

/** Whether a parsed value nests objects and arrays deeper than `limit`; walked without recursion. */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(v)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Whether JSON (or YAML flow) text opens brackets deeper than `limit`, read before any parser
 * sees it: brackets inside double-quoted strings are skipped.
 */
export function textNestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      if (++depth > limit) return true;
    } else if ((c === "]" || c === "}") && depth > 0) depth--;
  }
  return false;
}

/** A schema whose values may nest at most `MAX_JSON_DEPTH` deep, with an error naming the field and the bound. */
export function boundedDepth<T extends z.ZodType>(schema: T, field: string): T {
  return schema.check(
    z.superRefine((value, ctx) => {
      if (nestsDeeperThan(value)) ctx.addIssue({ code: "custom", message: `${field} is ${nestedTooDeep()}` });
    }),
  ) as T;
}
