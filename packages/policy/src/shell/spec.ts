/**
 * What the gate knows about a program: its options, what each operand is, its subcommands.
 * A command is understood only when every word finds its place in its program's spec.
 */

/** What a word is to its program. */
export type WordKind =
  /** A file the program reads. */
  | "read"
  /** A file the program creates, changes or removes. */
  | "write"
  /** A path the program looks at without reading its content (ls, stat, cd, test -e). */
  | "path"
  /** Text that names no file: a message, a pattern, a number, a name. */
  | "text"
  /** A shell script string, parsed and evaluated as a script (bash -c, eval, trap). */
  | "script"
  /** The first word of a command the program runs, with the rest of the words as its arguments. */
  | "command"
  /** A variable name: a plain identifier, or the shell would evaluate it (`a[$(cmd)]`). */
  | "name"
  /** `NAME` or `NAME=value` of export, declare, local, readonly, alias. */
  | "assign"
  /** An arithmetic expression (`let`), evaluated with the values of the variables it names. */
  | "arith"
  /** A value that names a file after `@` or `<` (`curl -d @file`, `-F f=<file`). */
  | "data"
  /** A shell option name (`set -o NAME`). */
  | "setopt"
  /** The directory the command (or the command it runs) works in (`env -C`, `tar -C`, `sudo -D`). */
  | "cwd"
  /** A directory whose project files the program runs (`make -C`, `git -C`, `npm --prefix`). */
  | "project"
  /** A program or code the gate cannot read (sort --compress-program, python -c): never allowed. */
  | "runs"
  /** A plugin loaded by name (`pytest -p NAME`), which runs its code; `no:NAME` turns one off instead. */
  | "plugin"
  /** A file that lists the names of the files the program reads (`tar -T`, `sort --files0-from`). */
  | "names"
  /** A repository address; `ext::CMD` makes git run CMD. */
  | "remote"
  /** A file of code the program loads (`eslint -c eslint.config.js`): a project file it runs. */
  | "code"
  /** Settings `k=v,k=v` whose values may be files: `src=` read, `dest=` written (`docker build --secret`). */
  | "fields";

export interface OptionDef {
  /** The kind of the option's value; absent for a flag. */
  value?: WordKind;
  /** Kinds of further values it takes as the next words (`jq --arg NAME VALUE`). */
  more?: readonly WordKind[];
  /** Every word after it is an argument of what it runs (`python -m MODULE ARGS`). */
  ends?: boolean;
  /** The value is only ever attached (`--color=auto`, `-i.bak`), never the next word. */
  attachedOnly?: boolean;
  /** Why this option makes the program run code or write files: its allow becomes ask. */
  risk?: string;
}

export interface OperandSpec {
  /** Kinds of the leading operands, in order. */
  lead?: readonly WordKind[];
  /** Options that supply the lead operands themselves (`grep -e PAT` has no pattern operand). */
  leadUnless?: readonly string[];
  /** The kind of the last operand when there are at least two (cp SRC... DEST). */
  last?: WordKind;
  /** The kind of every other operand. */
  rest: WordKind;
  /** Options after the first operand are operands (`echo -n` at the start only, `find`). */
  optionsFirst?: boolean;
}

export interface ProgramSpec {
  options: ReadonlyMap<string, OptionDef>;
  /** What each operand is. */
  operands: OperandSpec;
  subcommands?: ReadonlyMap<string, ProgramSpec>;
  /** The subcommand may be missing (`git` alone prints help). */
  subcommandOptional?: boolean;
  /** Every option is accepted as a flag (programs that neither run code nor take files by option). */
  anyFlag?: boolean;
  /** Why this program (or subcommand) runs code the gate cannot read, whatever its words. */
  risk?: string;
  /** Options that make it only read, clearing `risk` (`git config --get`). */
  safeWith?: readonly string[];
  /** A wrapper: where the command it runs starts (an index among operands). */
  commandAt?: number;
  /** A word that is none of its subcommands names a script or a package's program it runs (`pnpm vitest`): the command from that word. */
  runsOtherSubcommands?: boolean;
  /** A wrapper that runs its command as another user (sudo, doas). */
  privileged?: boolean;
  /** A wrapper that adds arguments the line does not show (xargs). */
  addsArguments?: boolean;
  /** NAME=value operands before the command are environment assignments (env, sudo). */
  assignments?: boolean;
  /** The first operand is a script file it runs (python, node, source); none means its input. */
  scriptOperand?: boolean;
  /** Options with which it finds the files it runs itself, never its input (`node --test`). */
  findsScriptsWith?: readonly string[];
  /** Options are words of one dash (`go build -toolexec=x`, `terraform plan -var-file=f`). */
  singleDashLong?: boolean;
  /** The files it reads are also rewritten: always, or when one of these options is given (`prettier --write`). */
  rewrites?: true | readonly string[];
  /** Words after `--` go on to a program that can run code (`gh repo clone R -- GIT-OPTIONS`): why they ask. */
  forwards?: string;
}

/** What a spec says of its program besides its options, operands and subcommands: written as compiled. */
type SpecFlags = Omit<ProgramSpec, "options" | "operands" | "subcommands">;

export interface SpecInput extends SpecFlags {
  /**
   * Options, space-separated: `-a` a flag, `-n:text` takes a value, `--color?=text` takes an
   * attached value only, `--exec!` a flag that makes the program run code (its allow asks),
   * `--pre:runs` a value that is a program to run, `--arg:text,text` two values, `-m:text>` an
   * option after which every word belongs to what it runs.
   */
  options?: string;
  operands?: OperandSpec | WordKind;
  subcommands?: Record<string, SpecInput>;
  /** The subcommands also accept the program's own options (`npm run -s build`). */
  inheritOptions?: boolean;
  /** Options whose use asks, with why (`gh auth status --show-token` prints a credential). */
  optionRisks?: Record<string, string>;
}

const KINDS: ReadonlySet<string> = new Set([
  "read",
  "write",
  "path",
  "text",
  "script",
  "command",
  "runs",
  "plugin",
  "name",
  "assign",
  "arith",
  "data",
  "setopt",
  "cwd",
  "project",
  "names",
  "remote",
  "code",
  "fields",
]);

function parseOption(token: string): [string, OptionDef] {
  const ends = token.endsWith(">");
  const [name, def] = parseOptionBody(ends ? token.slice(0, -1) : token);
  return [name, ends ? { ...def, ends } : def];
}

function parseOptionBody(token: string): [string, OptionDef] {
  const risky = token.endsWith("!");
  const body = risky ? token.slice(0, -1) : token;
  const attached = body.indexOf("?=");
  const valued = body.indexOf(":");
  const risk = risky ? { risk: "makes it run code or write files" } : {};
  if (attached > 0) return [body.slice(0, attached), { value: kind(body.slice(attached + 2)), attachedOnly: true, ...risk }];
  if (valued > 0) {
    const [value, ...more] = body
      .slice(valued + 1)
      .split(",")
      .map(kind);
    return [body.slice(0, valued), { value: value!, ...(more.length > 0 ? { more } : {}), ...risk }];
  }
  return [body, risk];
}

function kind(text: string): WordKind {
  if (!KINDS.has(text)) throw new Error(`unknown word kind "${text}" in a program spec`);
  return text as WordKind;
}

/**
 * Compiles a spec written in the option mini-language above; `inherited` options are accepted
 * too, the spec's own taking precedence.
 */
export function defineSpec(input: SpecInput, inherited: ReadonlyMap<string, OptionDef> = new Map()): ProgramSpec {
  const { options: written, operands: given, subcommands, inheritOptions, optionRisks, ...flags } = input;
  const options = new Map([...inherited, ...(written ?? "").split(/\s+/).filter(Boolean).map(parseOption)]);
  for (const [name, risk] of Object.entries(optionRisks ?? {})) options.set(name, { ...options.get(name), risk });
  const operands: OperandSpec = typeof given === "string" ? { rest: given } : (given ?? { rest: "text" });
  const spec: ProgramSpec = { options, operands, ...clean(flags) };
  if (subcommands) spec.subcommands = new Map(Object.entries(subcommands).map(([name, s]) => [name, defineSpec(s, inheritOptions ? options : undefined)]));
  return spec;
}

function clean<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
