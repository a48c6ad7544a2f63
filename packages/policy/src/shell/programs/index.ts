import { classifyWords, emptyClassified, type Classified } from "../classify.js";
import { defineSpec, type ProgramSpec, type SpecInput } from "../spec.js";
import { isLiteral, type ShellWord } from "../words.js";
import { BUILTIN_PROGRAMS } from "./builtins.js";
import { EDITOR_PROGRAMS, FILE_PROGRAMS } from "./files.js";
import { GITHUB_PROGRAMS } from "./github.js";
import { NETWORK_PROGRAMS } from "./network.js";
import { PYTHON_MODULES } from "./python-modules.js";
import { RUNTIME_PROGRAMS } from "./runtimes.js";
import { SEARCH_PROGRAMS } from "./search.js";
import { SPECIAL_READERS } from "./special.js";
import { VCS_PROGRAMS } from "./vcs.js";
import { WRAPPER_PROGRAMS } from "./wrappers.js";

const TABLES: Record<string, SpecInput>[] = [
  FILE_PROGRAMS,
  EDITOR_PROGRAMS,
  SEARCH_PROGRAMS,
  VCS_PROGRAMS,
  RUNTIME_PROGRAMS,
  GITHUB_PROGRAMS,
  NETWORK_PROGRAMS,
  WRAPPER_PROGRAMS,
  BUILTIN_PROGRAMS,
];

const SPECS: ReadonlyMap<string, ProgramSpec> = new Map(TABLES.flatMap((t) => Object.entries(t)).map(([name, input]) => [name, defineSpec(input)]));

/** Kinds of values that only name text or files to look at or read. */
const PLAIN_VALUES: ReadonlySet<string> = new Set(["text", "path", "read"]);
const anyWords = new WeakMap<ProgramSpec, boolean>();

/**
 * Whether any words at all, options included, leave the program harmless: words that `xargs`
 * appends from its input cannot make it run, write or load anything (`xargs ls`, `xargs wc -l`).
 */
export function takesAnyWords(spec: ProgramSpec | null): boolean {
  if (!spec) return false;
  let known = anyWords.get(spec);
  if (known === undefined) {
    const { lead = [], rest, last } = spec.operands;
    // Where any flag is accepted, only a printer of text with no valued options is harmless (echo).
    const printer = rest === "text" && lead.length === 0 && [...spec.options.values()].every((o) => o.value === undefined);
    known =
      !spec.subcommands &&
      (!spec.anyFlag || printer) &&
      !spec.risk &&
      spec.commandAt === undefined &&
      !spec.scriptOperand &&
      [...lead, rest, ...(last ? [last] : [])].every((k) => k === "text" || k === "path") &&
      [...spec.options.values()].every((o) => !o.risk && !o.ends && [o.value, ...(o.more ?? [])].every((k) => k === undefined || PLAIN_VALUES.has(k)));
    anyWords.set(spec, known);
  }
  return known;
}

/** Whether the gate has a model of this program (a spec or a reader of its own). */
export function isKnownProgram(name: string): boolean {
  return SPECS.has(name) || SPECIAL_READERS.has(name);
}

/** The command's words in their places, or null for a program the gate has no model of. */
/** Asked alone, these only print; every program the gate knows answers them (GNU's convention). */
const QUERIES: ReadonlySet<string> = new Set(["--version", "--help"]);

export function classifyCommand(words: readonly ShellWord[], name: string): Classified | null {
  if (words.length === 2 && QUERIES.has(words[1]!.text) && isLiteral(words[1]!) && isKnownProgram(name)) return emptyClassified(name, SPECS.get(name) ?? null);
  const special = SPECIAL_READERS.get(name);
  if (special) return special(words, name);
  const spec = SPECS.get(name);
  return spec ? classifyWords(words, spec, name) : null;
}

const MODULES: ReadonlyMap<string, ProgramSpec> = new Map(Object.entries(PYTHON_MODULES).map(([name, input]) => [name, defineSpec(input)]));

/** A `python -m MODULE` of the standard library, its words in their places; null for any other module. */
export function classifyModule(words: readonly ShellWord[], module: string): Classified | null {
  const spec = MODULES.get(module);
  return spec ? classifyWords(words, spec, module) : null;
}
