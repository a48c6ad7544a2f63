import fs from "node:fs";
import { findNodeAtLocation, parse, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import type { z } from "zod";
import { GatehouseError } from "../errors.js";

/** A config file's text parsed as JSONC (comments and trailing commas allowed), with its tree for locating problems. */
export interface ConfigDocument {
  file: string;
  value: unknown;
  root: Node | undefined;
  text: string;
}

function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `${line}:${offset - before.lastIndexOf("\n")}`;
}

/** Reads and parses a config file; a syntax error names its line and column. */
export function readConfigFile(file: string): ConfigDocument {
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw new Error("not a regular file");
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new GatehouseError("CONFIG", `${file}: cannot read the config file: ${(err as Error).message}`);
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) throw new GatehouseError("CONFIG", `${file}:${position(text, first.offset)}: syntax error: ${printParseErrorCode(first.error)}`);
  if (root?.type !== "object") throw new GatehouseError("CONFIG", `${file}:1:1: the config must be a JSON object`);
  return { file, value: parse(text, [], { allowTrailingComma: true }), root, text };
}

/** One zod issue as `file:line:col: field: message`, located in the file when the field came from it. */
export function describeConfigIssue(doc: ConfigDocument | undefined, issue: z.core.$ZodIssue): string {
  const path = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
  if (issue.code === "unrecognized_keys") {
    return issue.keys
      .map((key) => `${locate(doc, [...path, key], true)}unknown key "${[...path, key].join(".")}" (not a setting; check its spelling)`)
      .join("; ");
  }
  return `${locate(doc, path, false)}${path.join(".") || "config"}: ${issue.message}`;
}

function locate(doc: ConfigDocument | undefined, path: (string | number)[], atKey: boolean): string {
  if (!doc?.root) return "";
  const node = findNodeAtLocation(doc.root, path);
  if (!node) return "";
  const at = atKey && node.parent?.type === "property" ? node.parent.children![0]!.offset : node.offset;
  return `${doc.file}:${position(doc.text, at)}: `;
}
