import { changesTheShell } from "./environment.js";
import type { OptionDef, ProgramSpec, WordKind } from "./spec.js";
import type { ShellWord } from "./words.js";

/** Every word of one command put in its place, or the reason it could not be. */
export interface Classified {
  /** The program and subcommands as recognised (`git commit`). */
  name: string;
  reads: ShellWord[];
  writes: ShellWord[];
  paths: ShellWord[];
  /**
   * Words that may be files it reads and writes: the value an option the gate does not know may
   * take (`--cache /tmp/c`), the parts of `k=v,k=v` values. They ask when they lead outside the
   * work directory or a rule denies them; elsewhere they are taken for text.
   */
  mayBeFiles: readonly ShellWord[];
  scripts: ShellWord[][];
  /** Commands the program runs, as ranges of its words (a wrapper's command, `find -exec ... ;`). */
  inner: InnerCommand[];
  /** The operands, in order, after options were taken out. */
  operands: ShellWord[];
  /** A file the program runs as a script (`bash x.sh`, `python3 x.py`, `source x`). */
  runsFile: ShellWord | null;
  /** Long options written as abbreviations, by word index, with their full names (`--har` -> `--hard`). */
  canonical: ReadonlyMap<number, string>;
  /** NAME of NAME=value words a wrapper sets for its command. */
  assignments: string[];
  /** Variables that export, declare, local or readonly set, and whether they are exported. */
  declared: { name: string; exported: boolean }[];
  /** Arithmetic expressions the program evaluates (`let`). */
  arith: ShellWord[];
  /** The directory it, or the command it runs, works in (`env -C DIR`). */
  chdir: ShellWord | null;
  /** Directories whose project files (Makefile, package.json, .git/config) it runs. */
  projects: ShellWord[];
  /** Why a word has no place (an unknown option or subcommand), or null. */
  unknown: string | null;
  /** Why the command runs code or writes in ways the words do not show, or null. */
  risk: string | null;
  /** The spec that placed the words (the subcommand's, when there is one). */
  spec: ProgramSpec | null;
}

export interface InnerCommand {
  start: number;
  end: number;
  via: string;
}

/** Shared by every command that abbreviates no option (almost all). */
const NO_CANONICAL: ReadonlyMap<number, string> = new Map();
/** Shared by every command that names no file it may touch (almost all). */
const NO_WORDS: readonly ShellWord[] = [];

export function emptyClassified(name: string, spec: ProgramSpec | null): Classified {
  return {
    name,
    reads: [],
    writes: [],
    paths: [],
    mayBeFiles: NO_WORDS,
    scripts: [],
    inner: [],
    operands: [],
    runsFile: null,
    canonical: NO_CANONICAL,
    assignments: [],
    declared: [],
    arith: [],
    chdir: null,
    projects: [],
    unknown: null,
    risk: null,
    spec,
  };
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Names of options that, unknown, may well run something: they ask even where any flag is accepted. */
const RUNS_LIKE = /exec|cmd|command|shell|hook|pager|editor|program|script|run|eval|filter|tool|wrapper|helper|proxy|plugin|load|require|config/i;
/** Keys of `k=v,k=v` option values that name a file read, or one written (docker build --secret, --output). */
const READ_KEYS: ReadonlySet<string> = new Set(["src", "source", "from", "file"]);
const WRITE_KEYS: ReadonlySet<string> = new Set(["dest", "dst", "destination", "out", "output"]);
/** `html:/tmp/x`, `xml:./out.xml`: a report type, then the file it goes to (`pytest --cov-report`). */
const TYPED_PATH = /^[A-Za-z][\w-]*:(?!\/\/)([/~.].*)$/s;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Options that make a program print information and run nothing. */
const INFORMATION: ReadonlySet<string> = new Set(["--version", "-v", "-V", "--help", "-h", "-c", "--check"]);
const DECLARED = /^([A-Za-z_][A-Za-z0-9_]*)(\[\d*\])?(\+?=(.*))?$/s;
/** `set -o` options that change nothing about what runs or what is exported. */
const SAFE_SET_OPTIONS: ReadonlySet<string> = new Set([
  "errexit",
  "nounset",
  "xtrace",
  "verbose",
  "pipefail",
  "noglob",
  "noclobber",
  "errtrace",
  "functrace",
  "noexec",
  "posix",
  "notify",
  "ignoreeof",
  "monitor",
  "braceexpand",
  "hashall",
  "histexpand",
  "history",
  "emacs",
  "vi",
  "physical",
  "interactive-comments",
  "noglob",
]);
const NUMERIC_OPTION = /^-\d+$/;
const NONE_GIVEN: ReadonlySet<string> = new Set();
const NO_KINDS: readonly WordKind[] = [];

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** `-x` for the letter at `j`: one string per ASCII letter, not a new one for every option read. */
const SHORT_NAMES: readonly string[] = Object.keys(Object.fromEntries(Array.from({ length: 128 }, (_, code) => [`-${String.fromCharCode(code)}`, 0])));

function shortName(text: string, j: number): string {
  return SHORT_NAMES[text.charCodeAt(j)] ?? `-${text[j]}`;
}

/** A long option by its full name or a prefix only it has (GNU getopt accepts `--expr`). */
function longOption(spec: ProgramSpec, name: string): [string, OptionDef] | null {
  const exact = spec.options.get(name);
  if (exact) return [name, exact];
  // Programs with one-dash options (go, terraform) take `--name` for `-name` too, never a prefix.
  if (spec.singleDashLong) {
    const single = name.startsWith("--") ? spec.options.get(name.slice(1)) : undefined;
    return single ? [name.slice(1), single] : null;
  }
  let found: [string, OptionDef] | null = null;
  for (const entry of spec.options) {
    if (!entry[0].startsWith("--") || !entry[0].startsWith(name)) continue;
    if (found) return null;
    found = entry;
  }
  return found;
}

class Classifier {
  readonly out: Classified;
  private readonly operands: { word: ShellWord; index: number }[] = [];
  /** Options given, by name; the shared empty set until the first. */
  private given: ReadonlySet<string> = NONE_GIVEN;
  /** An option said that every word after it belongs to what the program runs. */
  private ended = false;

  /** The program's own spec, before any subcommand. */
  private readonly root: ProgramSpec;

  constructor(
    private readonly words: readonly ShellWord[],
    private spec: ProgramSpec,
    name: string,
  ) {
    this.out = emptyClassified(name, spec);
    this.root = spec;
  }

  private value(kind: WordKind, word: ShellWord | undefined, option: string): void {
    if (!word) return this.fail(`the option ${option} of ${this.out.name} has no value`);
    this.place(kind, word, option);
  }

  private place(kind: WordKind, word: ShellWord, what: string): void {
    switch (kind) {
      case "read":
        this.out.reads.push(word);
        break;
      case "write":
        this.out.writes.push(word);
        break;
      case "path":
        this.out.paths.push(word);
        break;
      case "script":
        this.out.scripts.push([word]);
        break;
      case "plugin":
        if (!word.dynamic && word.text.startsWith("no:")) break;
        this.out.risk ??= `${what} of ${this.out.name} runs ${word.raw}, which the gate cannot read`;
        break;
      case "runs":
        this.out.risk ??= `${what} of ${this.out.name} runs ${word.raw}, which the gate cannot read`;
        break;
      case "command":
        this.fail(`${what} of ${this.out.name} names a command in a way the gate does not follow`);
        break;
      case "arith":
        this.out.arith.push(word);
        break;
      case "name":
        if (!IDENTIFIER.test(word.text)) this.riskOf(`"${word.raw}" is not a plain variable name, so ${this.out.name} would evaluate it`);
        else this.out.declared.push({ name: word.text, exported: false });
        if (changesTheShell(word.text)) this.riskOf(`${this.out.name} sets ${word.text}, which changes what the shell runs`);
        break;
      case "assign":
        this.declare(word);
        break;
      case "data":
        this.data(word);
        break;
      case "setopt":
        if (!SAFE_SET_OPTIONS.has(word.text)) this.riskOf(`set -o ${word.text} changes what later commands run or export`);
        break;
      case "cwd":
        this.out.chdir = word;
        break;
      case "project":
        this.out.projects.push(word);
        break;
      case "names":
        this.out.reads.push(word);
        this.riskOf(`${what} of ${this.out.name} reads the files listed in ${word.raw}, which the gate cannot check`);
        break;
      case "remote":
        if (/^ext::/i.test(word.text)) this.riskOf(`${this.out.name} is given the address ${word.raw}, whose ext:: transport runs a command`);
        break;
      case "code":
        this.out.reads.push(word);
        this.out.runsFile ??= word;
        break;
      case "fields":
        this.fields(word, true);
        break;
      case "text":
        break;
    }
  }

  /**
   * `id=x,src=FILE`, `type=local,dest=DIR`, `name=DIR`, `html:DIR`: the values of a list of settings. With
   * `known`, `src=` values are files read, `dest=` values and a plain file are written; every
   * value but a `dest=`, and every value of an option the gate does not know, may be a file.
   */
  private fields(word: ShellWord, known: boolean): void {
    const typed = TYPED_PATH.exec(word.text);
    if (typed) this.mayBe({ ...word, text: typed[1]! });
    if (!word.text.includes("=") && !word.text.includes(",")) {
      // A plain file (`-o out.tar`, `-f Dockerfile`): read or written, checked both ways.
      if (known && !typed) {
        this.out.reads.push(word);
        this.out.writes.push(word);
      }
      return;
    }
    for (const item of word.text.split(",", 32)) {
      const eq = item.indexOf("=");
      const value = item.slice(eq + 1);
      if (!value) continue;
      const part = { ...word, text: TYPED_PATH.exec(value)?.[1] ?? value };
      const key = eq > 0 ? item.slice(0, eq).toLowerCase() : "";
      if (known && WRITE_KEYS.has(key)) this.out.writes.push(part);
      else {
        // A file handed on (to a build, a cluster) asks outside the work directory, as a write would.
        if (known && READ_KEYS.has(key)) this.out.reads.push(part);
        this.mayBe(part);
      }
    }
  }

  private mayBe(word: ShellWord): void {
    if (this.out.mayBeFiles === NO_WORDS) this.out.mayBeFiles = [word];
    else (this.out.mayBeFiles as ShellWord[]).push(word);
  }

  private riskOf(reason: string): void {
    this.out.risk ??= reason;
  }

  private declare(word: ShellWord): void {
    const m = DECLARED.exec(word.text);
    if (!m) return this.riskOf(`"${word.raw}" is not a plain variable name, so ${this.out.name} would evaluate it`);
    if (m[3] !== undefined && this.out.name === "alias") return this.riskOf("alias changes what a name runs");
    if (m[4]?.startsWith("(")) return this.riskOf(`${this.out.name} ${m[1]}=(...) is evaluated by the shell`);
    const exported = this.out.name === "export" || this.given.has("-x");
    this.out.declared.push({ name: m[1]!, exported });
  }

  /** `@file` and `name=@file` / `name=<file` read the file. */
  private data(word: ShellWord): void {
    const m = /^(?:[^=@<]*=)?[@<](.+)$/s.exec(word.text);
    if (m) this.out.reads.push({ ...word, text: m[1]! });
  }

  /** The value of an option the gate does not know may be a file the program reads or writes. */
  private unknownValue(word: ShellWord): number {
    this.out.paths.push(word);
    this.out.writes.push(word);
    this.fields(word, false);
    return 1;
  }

  /** The word after an option the gate does not know may be its value (`--cache /tmp/c`, `-D /tmp/d`). */
  private mayBeValue(at: number): void {
    const word = this.words[at];
    if (!word || word.text.startsWith("-")) return;
    this.mayBe(word);
    this.fields(word, false);
  }

  private canonicalName(i: number, full: string): void {
    const canonical = this.out.canonical === NO_CANONICAL ? new Map<number, string>() : (this.out.canonical as Map<number, string>);
    canonical.set(i, full);
    this.out.canonical = canonical;
  }

  private fail(reason: string): void {
    this.out.unknown ??= reason;
  }

  private option(def: OptionDef, name: string): void {
    if (this.given === NONE_GIVEN) this.given = new Set<string>().add(name);
    else (this.given as Set<string>).add(name);
    if (def.ends) this.ended = true;
    if (def.risk) this.out.risk ??= `${this.out.name} ${name} ${def.risk}`;
  }

  /** `--name`, `--name=value`, `--name value`. Returns how many words it used. */
  private long(i: number): number {
    const text = this.words[i]!.text;
    const eq = text.indexOf("=");
    const written = eq > 0 ? text.slice(0, eq) : text;
    const found = longOption(this.spec, written);
    if (!found) {
      if (!this.spec.anyFlag || RUNS_LIKE.test(written)) this.fail(`${this.out.name} has no option ${written} the gate knows`);
      else if (eq > 0) this.unknownValue({ ...this.words[i]!, text: text.slice(eq + 1) });
      else this.mayBeValue(i + 1);
      return 1;
    }
    const [name, def] = found;
    if (name !== written) this.canonicalName(i, eq > 0 ? name + text.slice(eq) : name);
    this.option(def, name);
    if (!def.value) {
      if (eq > 0) this.fail(`the option ${name} of ${this.out.name} takes no value`);
      return 1;
    }
    if (eq > 0) {
      this.place(def.value, { ...this.words[i]!, text: text.slice(eq + 1) }, name);
      return 1;
    }
    if (def.attachedOnly) return 1;
    return 1 + this.values(def, i + 1, name);
  }

  /** The option's value and further values from word `at` on; returns how many words they used. */
  private values(def: OptionDef, at: number, name: string): number {
    if (def.value === "command") {
      if (at < this.words.length) this.out.inner.push({ start: at, end: this.words.length, via: `${this.out.name} ${name}` });
      this.ended = true;
      return this.words.length - at;
    }
    const kinds = [def.value!, ...(def.more ?? [])];
    kinds.forEach((k, n) => this.value(k, this.words[at + n], name));
    return kinds.length;
  }

  /** `-abc`, `-n5`, `-n 5`, `-eKEY`. Returns how many words it used. */
  private short(i: number): number {
    const text = this.words[i]!.text;
    if (isDigit(text.charCodeAt(1)) && NUMERIC_OPTION.test(text) && this.spec.options.has("-#")) return 1;
    for (let j = 1; j < text.length; j++) {
      const name = shortName(text, j);
      const def = this.spec.options.get(name);
      if (!def) {
        if (!this.spec.anyFlag) this.fail(`${this.out.name} has no option ${name} the gate knows`);
        // `-o/etc/x`: what follows an unknown letter is no cluster of flags but its value.
        else if (/[^A-Za-z0-9]/.test(text.slice(j + 1))) return this.unknownValue({ ...this.words[i]!, text: text.slice(j + 1) });
        else if (j === text.length - 1) this.mayBeValue(i + 1);
        continue;
      }
      this.option(def, name);
      if (!def.value) continue;
      const rest = text.slice(j + 1);
      if (rest) {
        this.place(def.value, { ...this.words[i]!, text: rest }, name);
        return 1 + (def.more ? this.values({ value: def.more[0]!, more: def.more.slice(1) }, i + 1, name) : 0);
      }
      if (def.attachedOnly) return 1;
      return 1 + this.values(def, i + 1, name);
    }
    return 1;
  }

  private subcommand(word: ShellWord): boolean {
    const sub = this.spec.subcommands?.get(word.text);
    if (!sub) {
      this.fail(`"${word.text}" is not a ${this.out.name} subcommand the gate knows`);
      return false;
    }
    this.out.name = `${this.out.name} ${word.text}`;
    this.spec = sub;
    this.out.spec = sub;
    return true;
  }

  run(start: number): Classified {
    let optionsEnded = false;
    let i = start;
    let pendingSub = this.spec.subcommands !== undefined;
    while (i < this.words.length && !this.ended) {
      const word = this.words[i]!;
      const text = word.text;
      const optionsOpen = !optionsEnded && !(this.spec.operands.optionsFirst && this.operands.length > 0);
      if (optionsOpen && text === "--") {
        optionsEnded = true;
        if (this.spec.forwards && i + 1 < this.words.length) this.riskOf(`${this.out.name} ${this.spec.forwards}`);
        i++;
      } else if (optionsOpen && text.startsWith("--") && text.length > 2) i += this.long(i);
      else if (optionsOpen && text.startsWith("-") && text.length > 1) i += this.spec.singleDashLong && text.length > 2 ? this.long(i) : this.short(i);
      else if (pendingSub) {
        if (this.spec.runsOtherSubcommands && !this.spec.subcommands!.has(text)) {
          this.out.inner.push({ start: i, end: this.words.length, via: this.out.name });
          pendingSub = false;
          break;
        }
        if (!this.subcommand(word)) return this.out;
        pendingSub = this.spec.subcommands !== undefined;
        i++;
      } else if (this.spec.assignments && this.operands.length === 0 && ASSIGNMENT.test(word.raw)) {
        this.out.assignments.push(text.slice(0, text.indexOf("=")));
        i++;
      } else if (this.spec.commandAt !== undefined && this.operands.length === this.spec.commandAt) {
        this.out.inner.push({ start: i, end: this.words.length, via: this.out.name });
        break;
      } else {
        this.operands.push({ word, index: i });
        i++;
      }
    }
    if (pendingSub && !this.spec.subcommandOptional) this.fail(`${this.out.name} is given no subcommand`);
    // An option given before the subcommand means there what the subcommand says (`npm -g install`).
    if (this.out.spec !== this.root)
      for (const name of this.given) {
        const risk = this.spec.options.get(name)?.risk;
        if (risk) this.riskOf(`${this.out.name} ${name} ${risk}`);
      }
    this.placeOperands();
    this.out.operands = this.operands.map((o) => o.word);
    const { risk, safeWith } = this.spec;
    if (risk && !safeWith?.some((o) => this.given.has(o))) this.out.risk ??= `${this.out.name} ${risk}`;
    const finds = this.spec.findsScriptsWith?.some((o) => this.given.has(o)) ?? false;
    if (this.spec.scriptOperand && !this.inline() && !finds) scriptFile(this.out, this.out.operands[0]);
    const { rewrites } = this.spec;
    if (rewrites === true || rewrites?.some((o) => this.given.has(o))) this.out.writes.push(...this.out.reads);
    return this.out;
  }

  /** An option gave the program its code (`python -c`, `python -m`) or asked only for information. */
  private inline(): boolean {
    for (const name of this.given) {
      const def = this.spec.options.get(name);
      if (def?.value === "runs" || def?.value === "command" || def?.ends || INFORMATION.has(name)) return true;
    }
    return false;
  }

  private placeOperands(): void {
    const n = this.operands.length;
    if (n === 0) return;
    const { lead, leadUnless, last, rest } = this.spec.operands;
    const leading = !lead || leadUnless?.some((o) => this.given.has(o)) ? NO_KINDS : lead;
    let joined: ShellWord[] | null = null;
    for (let k = 0; k < n; k++) {
      const word = this.operands[k]!.word;
      const kind = k < leading.length ? leading[k]! : last && n >= 2 && k === n - 1 ? last : rest;
      // Operands that together are one script (`eval rm x`, `watch ls -l`) are joined as the shell would.
      if (kind === "script" && k >= leading.length) (joined ??= []).push(word);
      else this.place(kind, word, "an operand");
    }
    if (joined) this.out.scripts.push(joined);
  }
}

const FROM_INPUT = /^(-|\/dev\/stdin|\/dev\/fd\/\d+|\/proc\/(self|thread-self|\d+)\/fd\/\d+)$/;

/** The program runs `file` as a script; without one, or with its input as the file, it runs its input. */
export function scriptFile(out: Classified, file: ShellWord | undefined): void {
  if (!file || FROM_INPUT.test(file.text)) {
    out.risk ??= `${out.name} runs a program read from its input`;
    return;
  }
  if (file.dynamic) out.risk ??= `${out.name} runs ${file.raw}, a script only known when the shell runs`;
  if (!out.reads.includes(file)) out.reads.push(file);
  out.runsFile = file;
}

/** Puts every word after the program name in its place according to the program's spec. */
export function classifyWords(words: readonly ShellWord[], spec: ProgramSpec, name: string, start = 1): Classified {
  return new Classifier(words, spec, name).run(start);
}
