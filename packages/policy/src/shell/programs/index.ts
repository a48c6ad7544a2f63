import { classifyWords, type Classified } from "../classify.js";
import { defineSpec, type ProgramSpec, type SpecInput } from "../spec.js";
import type { ShellWord } from "../words.js";
import { BUILTIN_PROGRAMS } from "./builtins.js";
import { EDITOR_PROGRAMS, FILE_PROGRAMS } from "./files.js";
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
  NETWORK_PROGRAMS,
  WRAPPER_PROGRAMS,
  BUILTIN_PROGRAMS,
];

const SPECS: ReadonlyMap<string, ProgramSpec> = new Map(TABLES.flatMap((t) => Object.entries(t)).map(([name, input]) => [name, defineSpec(input)]));

/** Whether the gate has a model of this program (a spec or a reader of its own). */
export function isKnownProgram(name: string): boolean {
  return SPECS.has(name) || SPECIAL_READERS.has(name);
}

/** The command's words in their places, or null for a program the gate has no model of. */
export function classifyCommand(words: readonly ShellWord[], name: string): Classified | null {
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
