import { Option, type Command } from "commander";
import { CliError } from "./cli-error.js";

/**
 * One option of a command, declared once: its flag (the table's key), its help, the environment
 * variable read when the flag is absent, and how its text becomes a value. Help, parsing, the
 * environment fallback and the "missing" error all come from this.
 */
export interface OptionSpec {
  /** The value's name in help (`DIR`); an option without one is a switch. */
  value?: string;
  help: string;
  /** Read when the flag is not given; an empty variable counts as unset, and a switch is on only at "1". */
  env?: string;
  /** The values allowed; anything else is an error naming the flag (or the variable) and the choices. */
  choices?: readonly string[];
  /** Checks and converts the text; `source` is the flag or the variable it came from, for errors. */
  parse?: (text: string, source: string) => unknown;
  /** The flag may be repeated; its values are collected in order. */
  multiple?: boolean;
  required?: boolean;
}

export type OptionTable = Record<string, OptionSpec>;

type Parsed<S> = S extends { value: string }
  ? S extends { parse: (...args: never[]) => infer T }
    ? T
    : S extends { choices: readonly (infer C)[] }
      ? C
      : string
  : boolean;

/** The values of a table's options, keyed by flag name: repeated ones as arrays, absent ones undefined. */
export type OptionValues<T extends OptionTable> = {
  [K in keyof T]: T[K] extends { multiple: true } ? Parsed<T[K]>[] : T[K] extends { required: true } ? Parsed<T[K]> : Parsed<T[K]> | undefined;
};

/** A flag with its value's name, as usage lines show it: `--dir DIR`. */
export function flagTerm(name: string, spec: OptionSpec): string {
  return spec.value ? `--${name} ${spec.value}` : `--${name}`;
}

function helpText(spec: OptionSpec): string {
  const notes = [spec.choices ? `one of ${spec.choices.join(", ")}` : "", spec.multiple ? "repeatable" : "", spec.env ? `env: ${spec.env}` : ""];
  const extra = notes.filter(Boolean).join("; ");
  return extra ? `${spec.help} (${extra})` : spec.help;
}

/** Declares the table's options on a command; values are read back with `readOptions`. */
export function addOptions(command: Command, table: OptionTable): void {
  for (const [name, spec] of Object.entries(table)) {
    const option = new Option(spec.value ? `--${name} <${spec.value}>` : `--${name}`, helpText(spec));
    if (spec.multiple) option.argParser((text: string, previous: string[] | undefined) => [...(previous ?? []), text]);
    command.addOption(option);
  }
}

/** A usage line: required options bare, the rest in brackets as far as the line has room (then `[options]`), then the arguments. */
export function usageTerms(table: OptionTable, args: string[]): string {
  const entries = Object.entries(table);
  const optional = entries.filter(([, spec]) => !spec.required).map(([name, spec]) => `[${flagTerm(name, spec)}]${spec.multiple ? "..." : ""}`);
  const required = entries.filter(([, spec]) => spec.required).map(([name, spec]) => flagTerm(name, spec));
  const full = [...required, ...optional, ...args].join(" ");
  if (full.length <= 150) return full;
  const shown = [...required];
  for (const term of optional) {
    if ([...shown, term, "[options]", ...args].join(" ").length > 150) break;
    shown.push(term);
  }
  return [...shown, "[options]", ...args].join(" ");
}

function convert(spec: OptionSpec, text: string, source: string): unknown {
  if (spec.choices && !spec.choices.includes(text)) throw new CliError(`${source} must be one of ${spec.choices.join(", ")} (got "${text}")`);
  return spec.parse ? spec.parse(text, source) : text;
}

/** The table's values after parsing: from the flag, else its environment variable, checked and converted. */
export function readOptions<T extends OptionTable>(command: Command, table: T, env: NodeJS.ProcessEnv = process.env): OptionValues<T> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const flag = `--${name}`;
    const given = command.getOptionValue(new Option(flag).attributeName()) as string | string[] | boolean | undefined;
    const fromEnv = given === undefined && spec.env && env[spec.env] ? env[spec.env]! : undefined;
    if (given === undefined && fromEnv === undefined) {
      if (spec.required) throw new CliError(`missing ${flagTerm(name, spec)}${spec.env ? ` (or ${spec.env})` : ""}`);
      values[name] = spec.multiple ? [] : undefined;
    } else if (!spec.value) values[name] = given ?? fromEnv === "1";
    else if (Array.isArray(given)) values[name] = given.map((text) => convert(spec, text, flag));
    else if (given !== undefined) values[name] = convert(spec, given as string, flag);
    else values[name] = spec.multiple ? [convert(spec, fromEnv!, spec.env!)] : convert(spec, fromEnv!, spec.env!);
  }
  return values as OptionValues<T>;
}
