import fs from "node:fs";
import path from "node:path";
import { applyEdits, findNodeAtLocation, modify, parseTree, type FormattingOptions, type Node, type ParseError } from "jsonc-parser";
import type { Action } from "./action.js";
import { PolicyError } from "./errors.js";
import { APPROVAL_MARK, JSONC_OPTIONS } from "./rules-file.js";

export interface AppendRule {
  tool: string;
  pattern: string;
  action?: Action;
  /** Text after the approval mark, e.g. who approved and when. */
  note?: string;
}

const PLACEHOLDER = "\u0000gatehouse-placeholder\u0000";

function formatting(text: string): FormattingOptions {
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  return { insertSpaces: !indent.includes("\t"), tabSize: indent.includes("\t") ? 1 : indent.length, eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

function rootOf(text: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, JSONC_OPTIONS);
  if (errors.length > 0 || !root || root.type !== "object") throw new PolicyError("APPEND_FAILED", "the rules file does not parse; fix it before adding rules");
  return root;
}

/** A top-level "*" written after the tool's entry would override the new rule: move the entry last. */
function moveEntryLast(text: string, tool: string, fmt: FormattingOptions): string {
  const root = rootOf(text);
  const props = root.children ?? [];
  const at = props.findIndex((p) => p.children?.[0]?.value === tool);
  const laterCatchAll = props.slice(at + 1).some((p) => p.children?.[0]?.value === "*");
  if (at < 0 || !laterCatchAll) return text;
  const value = props[at]!.children![1]!;
  const raw = text.slice(value.offset, value.offset + value.length);
  let out = applyEdits(text, modify(text, [tool], undefined, { formattingOptions: fmt }));
  out = applyEdits(out, modify(out, [tool], PLACEHOLDER, { formattingOptions: fmt }));
  return out.replace(JSON.stringify(PLACEHOLDER), raw);
}

/** The text with the rule appended last in its tool's entry, marked as approval-made. */
export function appendRuleText(text: string, rule: AppendRule): string {
  const fmt = formatting(text);
  const action = rule.action ?? "allow";
  let out = moveEntryLast(text, rule.tool, fmt);
  const entry = findNodeAtLocation(rootOf(out), [rule.tool]);
  if (entry?.type === "string") {
    out = applyEdits(out, modify(out, [rule.tool], { "*": entry.value }, { formattingOptions: fmt }));
  } else if (entry && entry.type !== "object") {
    throw new PolicyError("APPEND_FAILED", `the entry "${rule.tool}" is neither an action nor an object`);
  }
  if (findNodeAtLocation(rootOf(out), [rule.tool, rule.pattern])) {
    out = applyEdits(out, modify(out, [rule.tool, rule.pattern], undefined, { formattingOptions: fmt }));
  }
  out = applyEdits(out, modify(out, [rule.tool, rule.pattern], PLACEHOLDER, { formattingOptions: fmt }));
  const mark = ` ${APPROVAL_MARK}${rule.note ? ` ${rule.note.replace(/[\r\n]+/g, " ")}` : ""}`;
  const quoted = JSON.stringify(PLACEHOLDER);
  const at = out.indexOf(quoted);
  const lineEnd = out.indexOf("\n", at);
  const end = lineEnd === -1 ? out.length : lineEnd;
  const tail = out.slice(at + quoted.length, end);
  return `${out.slice(0, at)}${JSON.stringify(action)}${tail}${mark}${out.slice(end)}`;
}

const queues = new Map<string, Promise<unknown>>();

function lockFile(file: string): () => void {
  const lock = `${file}.lock`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: "wx" });
      return () => fs.rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 10_000) fs.rmSync(lock, { force: true });
      else if (Date.now() > deadline) throw new PolicyError("APPEND_FAILED", `${lock} is held by another process`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

function appendNow(file: string, rule: AppendRule): void {
  const release = lockFile(file);
  try {
    const text = fs.readFileSync(file, "utf8");
    const next = appendRuleText(text, rule);
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
    fs.writeFileSync(tmp, next, { mode: fs.statSync(file).mode });
    fs.renameSync(tmp, file);
  } finally {
    release();
  }
}

/**
 * Appends an approval-made rule to a permissions file: comments and indentation kept, written
 * atomically (temporary file and rename), serialised per file in this process and across
 * processes by a lock file.
 */
export function appendRule(file: string, rule: AppendRule): Promise<void> {
  const key = path.resolve(file);
  const previous = queues.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => appendNow(key, rule));
  queues.set(key, next);
  void next.finally(() => {
    if (queues.get(key) === next) queues.delete(key);
  });
  return next;
}
