import { classifyWords, emptyClassified, scriptFile, type Classified } from "../classify.js";
import { sedEffects } from "../sed-script.js";
import { defineSpec } from "../spec.js";
import { SHELLS } from "./runners.js";
import { FILE_PROGRAMS } from "./files.js";
import { RUNTIME_PROGRAMS } from "./runtimes.js";
import type { ShellWord } from "../words.js";

/** Programs whose words follow no getopt convention, or whose meaning depends on other words. */
export type SpecialReader = (words: readonly ShellWord[], name: string) => Classified;

const FIND_FLAGS = new Set([
  "-print",
  "-print0",
  "-ls",
  "-prune",
  "-quit",
  "-true",
  "-false",
  "-depth",
  "-d",
  "-mount",
  "-xdev",
  "-noleaf",
  "-empty",
  "-executable",
  "-readable",
  "-writable",
  "-nouser",
  "-nogroup",
  "-daystart",
  "-follow",
  "-ignore_readdir_race",
  "-noignore_readdir_race",
  "-not",
  "!",
  "-a",
  "-and",
  "-o",
  "-or",
  ",",
  "(",
  ")",
  "-H",
  "-L",
  "-P",
]);
const FIND_TEXT = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-wholename",
  "-iwholename",
  "-regex",
  "-iregex",
  "-lname",
  "-ilname",
  "-type",
  "-xtype",
  "-maxdepth",
  "-mindepth",
  "-size",
  "-mtime",
  "-atime",
  "-ctime",
  "-mmin",
  "-amin",
  "-cmin",
  "-perm",
  "-user",
  "-group",
  "-uid",
  "-gid",
  "-links",
  "-inum",
  "-used",
  "-fstype",
  "-printf",
  "-regextype",
  "-context",
  "-D",
  "-O",
]);
const FIND_PATH = new Set(["-newer", "-anewer", "-cnewer", "-samefile"]);
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const FIND_WRITES = new Map([
  ["-fprint", 1],
  ["-fprint0", 1],
  ["-fls", 1],
  ["-fprintf", 2],
]);

function find(words: readonly ShellWord[], name: string): Classified {
  const out = emptyClassified(name, null);
  // Where find deletes or runs commands, its starting points are written to, not only read.
  const changes = words.some((w) => w.text === "-delete" || FIND_EXEC.has(w.text));
  let i = 1;
  for (; i < words.length && !/^[-(!,)]/.test(words[i]!.text); i++) (changes ? out.writes : out.paths).push(words[i]!);
  while (i < words.length) {
    const t = words[i]!.text;
    if (FIND_EXEC.has(t)) {
      const end = words.findIndex((w, k) => k > i && (w.text === ";" || w.text === "+"));
      if (end === -1) out.unknown ??= `find ${t} is not closed by ; or +`;
      out.inner.push({ start: i + 1, end: end === -1 ? words.length : end, via: `find ${t}` });
      i = end === -1 ? words.length : end + 1;
    } else if (FIND_WRITES.has(t)) {
      out.writes.push(words[i + 1] ?? { text: "", raw: "", dynamic: false, glob: false });
      out.risk ??= `find ${t} writes a file`;
      i += 1 + FIND_WRITES.get(t)!;
    } else if (t === "-delete") {
      out.risk ??= "find -delete removes files";
      i++;
    } else if (FIND_TEXT.has(t) || /^-newer[acmBt]{2}$/.test(t)) i += 2;
    else if (FIND_PATH.has(t)) {
      if (words[i + 1]) out.paths.push(words[i + 1]!);
      i += 2;
    } else if (FIND_FLAGS.has(t) || /^-O\d$/.test(t)) i++;
    else {
      out.unknown ??= `find has no expression "${t}" the gate knows`;
      i++;
    }
  }
  return out;
}

const DD_KEYS = new Set(["bs", "ibs", "obs", "cbs", "count", "skip", "iseek", "seek", "oseek", "conv", "iflag", "oflag", "status"]);

function dd(words: readonly ShellWord[], name: string): Classified {
  const out = emptyClassified(name, null);
  for (const word of words.slice(1)) {
    const eq = word.text.indexOf("=");
    const key = eq > 0 ? word.text.slice(0, eq) : word.text;
    const value = { ...word, text: word.text.slice(eq + 1) };
    if (key === "if") out.reads.push(value);
    else if (key === "of") out.writes.push(value);
    else if (!DD_KEYS.has(key) && !/^--(help|version)$/.test(word.text)) out.unknown ??= `dd has no operand "${key}" the gate knows`;
  }
  return out;
}

const SED = defineSpec({
  options:
    "-n -E -r -s -u -z -b --quiet --silent --regexp-extended --separate --unbuffered --null-data --posix " +
    "--debug --sandbox --follow-symlinks --binary -l:text --line-length:text -e:text --expression:text " +
    "-f:read --file:read -i?=text --in-place?=text",
  operands: { lead: ["text"], leadUnless: ["-e", "--expression", "-f", "--file"], rest: "read" },
});

/** The scripts of sed or awk: every `-e` value (clustered, attached, or `--LONG=`), else the first operand (after options and their values). */
function scriptsOf(words: readonly ShellWord[], out: Classified, long: string): string[] {
  const scripts: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const t = words[i]!.text;
    if (t === "--") break;
    if (t === "-e" || t === long) scripts.push(words[++i]?.text ?? "");
    else if (t.startsWith(`${long}=`)) scripts.push(t.slice(long.length + 1));
    else if (/^-[a-zA-Z]*e./.test(t) && !t.startsWith("--")) scripts.push(t.slice(t.indexOf("e") + 1));
  }
  const [first] = out.operands;
  if (scripts.length === 0 && out.unknown === null && first) scripts.push(first.text);
  return scripts;
}

/** `-i`: the files a program is given are rewritten in place. */
function inPlace(out: Classified, words: readonly ShellWord[]): void {
  if (!words.some((w) => /^-[a-zA-Z]*i/.test(w.text) || w.text.startsWith("--in-place"))) return;
  out.writes.push(...out.reads);
  out.reads = [];
}

/**
 * The backup suffix of `sed -i`: the rest of the cluster after `i` (`-ni.bak`), or `--in-place=`'s
 * value; "" without one, null when sed edits nothing in place.
 */
function sedSuffix(words: readonly ShellWord[]): ShellWord | null {
  for (const w of words.slice(1)) {
    if (w.text === "--") return null;
    const m = /^-[a-zA-Z]*?i(.*)$|^--in-place(?:=(.*))?$/s.exec(w.text);
    if (m) return { text: m[1] ?? m[2] ?? "", raw: w.raw, dynamic: w.dynamic, glob: w.glob };
  }
  return null;
}

/**
 * `sed -i` writes the files it edits, and with a suffix a backup beside each (`F.bak`), all checked
 * as writes. A suffix with `*` or `/` names the backup elsewhere (`-i'bak/*'`), which asks.
 */
function sedInPlace(out: Classified, words: readonly ShellWord[]): void {
  const suffix = sedSuffix(words);
  if (suffix === null) return;
  inPlace(out, words);
  if (suffix.dynamic || /[*/]/.test(suffix.text)) {
    out.risk ??= `sed -i with the backup suffix ${suffix.raw} may write its backups anywhere`;
    return;
  }
  if (suffix.text === "") return;
  for (const f of [...out.writes]) out.writes.push({ text: f.text + suffix.text, raw: f.raw + suffix.text, dynamic: f.dynamic, glob: f.glob });
}

function sed(words: readonly ShellWord[], name: string): Classified {
  const out = classifyWords(words, SED, name);
  sedInPlace(out, words);
  if (words.some((w) => /^-[a-zA-Z]*f|^--file/.test(w.text))) out.risk ??= "sed -f runs a script file the gate does not read";
  for (const script of scriptsOf(words, out, "--expression")) {
    const effects = sedEffects(script);
    out.risk ??=
      effects.risk ??
      (effects.writes.length > 0 ? "the sed script writes files (w)" : effects.reads.length > 0 ? "the sed script reads other files (r)" : null);
    for (const file of effects.reads) out.reads.push({ text: file, raw: file, dynamic: false, glob: false });
    for (const file of effects.writes) out.writes.push({ text: file, raw: file, dynamic: false, glob: false });
  }
  return out;
}

const AWK = defineSpec({
  options:
    "-F:text --field-separator:text -v:text --assign:text -f:read --file:read -e:text --source:text -b -c " +
    "-C -d?=text -D?=text -g -h -L?=text -M -n -N -o?=text -O -p?=text -P -r -s -S -t -V " +
    "--characters-as-bytes --traditional --copyright --dump-variables?=text --gen-pot --help --lint?=text " +
    "--bignum --use-lc-numeric --non-decimal-data --optimize --posix --re-interval --no-optimize " +
    "--sandbox --lint-old --version -E:runs --exec:runs -i:runs --include:runs -l:runs --load:runs",
  operands: { lead: ["text"], leadUnless: ["-f", "--file", "-e", "--source"], rest: "read" },
});
// Also assignments to ARGV or ARGC, which choose the files awk reads.
const AWK_RUNS = /\bsystem\s*\(|\bgetline\b|\|&|@|\bprintf?\b[^;}\n]*[|>]|\bARG[VC]\b[^=;}\n]*=(?!=)|\\\n/;

function awk(words: readonly ShellWord[], name: string): Classified {
  const out = classifyWords(words, AWK, name);
  if (words.some((w) => /^(-f|--file)/.test(w.text))) out.risk ??= `${name} -f runs a program file the gate does not read`;
  const program = scriptsOf(words, out, "--source").join("\n");
  if (AWK_RUNS.test(program)) out.risk ??= `the ${name} program runs commands, reads other files or writes files`;
  for (const m of program.matchAll(/getline[^<;}]*<\s*"([^"]+)"/g)) out.reads.push({ text: m[1]!, raw: m[1]!, dynamic: false, glob: false });
  // `var=value` operands are assignments, not files.
  out.reads = out.reads.filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.text));
  return out;
}

const TAR_COMMON =
  "-v -z -j -J -Z -a -p -h -k -m -o -O -P! -S -W -w! --verbose --gzip --bzip2 --xz --zstd --lzma " +
  "--compress --auto-compress --preserve-permissions --same-permissions --dereference --keep-old-files " +
  "--overwrite --touch --to-stdout --sparse --verify --wildcards --no-wildcards --anchored --xattrs " +
  "--acls --selinux --no-same-owner --numeric-owner --totals --checkpoint?=text --strip-components:text " +
  "--transform:text --xform:text --exclude:text --exclude-vcs --exclude-caches --owner:text " +
  "--group:text --mode:text --mtime:text --sort:text --format:text -H:text --absolute-names! " +
  "--remove-files! -b:text --blocking-factor:text -I:runs --use-compress-program:runs --to-command:runs " +
  "--checkpoint-action:runs --info-script:runs -F:runs --new-volume-script:runs --rsh-command:runs " +
  "--rmt-command:runs -T:names --files-from:names -X:read --exclude-from:read --null";
const TAR_CREATE = defineSpec({
  options: `-c -r -u -A --create --append --update --concatenate -f:write --file:write -C:cwd --directory:cwd ${TAR_COMMON}`,
  operands: "read",
});
const TAR_EXTRACT = defineSpec({
  options: `-x -t -d --extract --get --list --diff --compare --delete -f:read --file:read -C:write --directory:write ${TAR_COMMON}`,
  operands: "path",
});

/** tar's words with a leading cluster of options given its dash, and whether they make an archive. */
function tarWords(words: readonly ShellWord[]): { normal: readonly ShellWord[]; creates: boolean } {
  const first = words[1];
  // `tar czf out.tgz dir`: the first word is a cluster of options without the dash.
  const normal = first && /^[A-Za-z]+$/.test(first.text) ? [words[0]!, { ...first, text: `-${first.text}` }, ...words.slice(2)] : words;
  const creates = normal.some((w, i) => i > 0 && (/^-[A-Za-z]*[cruA]/.test(w.text) || /^--(create|append|update|concatenate)$/.test(w.text)));
  return { normal, creates };
}

/** Whether a tar command unpacks an archive. */
export function tarExtracts(words: readonly ShellWord[]): boolean {
  const { normal, creates } = tarWords(words);
  return !creates && normal.some((w) => /^-[A-Za-z]*x|^--(extract|get)$/.test(w.text));
}

function tar(words: readonly ShellWord[], name: string): Classified {
  const { normal, creates } = tarWords(words);
  const out = classifyWords(normal, creates ? TAR_CREATE : TAR_EXTRACT, name);
  // Extraction writes into the directory given, or the current one.
  if (!creates && !normal.some((w) => /^(-[A-Za-z]*C|--directory)/.test(w.text)) && normal.some((w) => /^-[A-Za-z]*x|^--(extract|get)$/.test(w.text))) {
    out.writes.push({ text: ".", raw: ".", dynamic: false, glob: false });
  }
  return out;
}

const SHELL_OPTIONS =
  "-c -e -u -x -v -n -f -h -m -B -C -E -H -P -T -b -p -l --login --norc --noprofile --posix " +
  "--restricted -r --noediting --verbose --version --help -D --dump-strings -o:setopt -O:text " +
  "--rcfile:read --init-file:read -i! --interactive! -s! -a! -k! -t!";
const SHELL = defineSpec({ options: SHELL_OPTIONS, operands: { rest: "text", optionsFirst: true } });

/** Words without `+x` options and the name after `+o` / `+O`, which only turn shell options off. */
function withoutPlusOptions(words: readonly ShellWord[]): ShellWord[] {
  const out: ShellWord[] = [];
  for (let i = 0; i < words.length; i++) {
    const t = words[i]!.text;
    if (i > 0 && /^\+[a-zA-Z]+$/.test(t)) {
      if (/[oO]$/.test(t)) i++;
      continue;
    }
    out.push(words[i]!);
  }
  return out;
}

/** `bash -c SCRIPT [NAME ARGS]`, `bash FILE ARGS`, or a script from the input. */
function shell(words: readonly ShellWord[], name: string): Classified {
  const plusless = withoutPlusOptions(words);
  const out = classifyWords(plusless, SHELL, name);
  const inline = plusless.some((w, i) => i > 0 && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(w.text));
  const [first] = out.operands;
  if (inline) {
    if (first) out.scripts.push([first]);
    else out.unknown ??= `${name} -c is given no script`;
  } else scriptFile(out, first);
  return out;
}

const ENV = defineSpec({
  options:
    "-i -0 -v --ignore-environment --null --debug -u:name --unset:name -C:cwd --chdir:cwd -S:script " +
    "--split-string:script -P:runs --argv0:text -a:text --block-signal?=text --default-signal?=text " +
    "--ignore-signal?=text --list-signal-handling",
  commandAt: 0,
  assignments: true,
  operands: "text",
});
const COMMAND = defineSpec({ options: "-p -v -V", commandAt: 0 });
const COMMAND_DESCRIBE = defineSpec({ options: "-p -v -V", operands: "text" });

/** `env -i`, `env -`: every command is given git's protected settings in its environment, and these drop them. */
const CLEARS_ENVIRONMENT = /^(-|--ignore-environment|-[0v]*i[0v]*)$/;

const env: SpecialReader = (words, name) => {
  const out = classifyWords(words, ENV, name);
  const end = out.inner[0]?.start ?? words.length;
  if (words.slice(1, end).some((w) => CLEARS_ENVIRONMENT.test(w.text)))
    out.risk ??= `${name} clears the environment, and with it the settings every command is given (git's safe.bareRepository)`;
  return out;
};
const command: SpecialReader = (words, name) => classifyWords(words, words.some((w) => /^-[pvV]*[vV]/.test(w.text)) ? COMMAND_DESCRIBE : COMMAND, name);

const SET = defineSpec({ options: "-e -u -x -v -f -n -C -B -E -h -H -m -b -P -T -o:setopt", operands: "text" });
const set: SpecialReader = (words, name) => classifyWords(withoutPlusOptions(words), SET, name);

const RUNUSER_COMMAND = defineSpec({
  options: "-u:text --user:text -g:text --group:text -G:text --supp-group:text -m -p --preserve-environment -P --pty -w:text --whitelist-environment:text",
  commandAt: 0,
  privileged: true,
});
const RUNUSER_SHELL = defineSpec({
  options:
    "-u:text --user:text -g:text --group:text -G:text --supp-group:text -l! --login! -c:script " +
    "--command:script --session-command:script -f --fast -m -p --preserve-environment -s:runs " +
    "--shell:runs -P --pty -w:text --whitelist-environment:text",
  operands: { lead: ["text"], rest: "runs" },
});
/** `runuser -u USER CMD ARGS` runs a command; `runuser USER -c STRING` runs a shell. */
const runuser: SpecialReader = (words, name) =>
  classifyWords(
    words,
    words.some((w) => w.text === "-u" || w.text.startsWith("--user")) && !words.some((w) => /^(-c|--command)/.test(w.text)) ? RUNUSER_COMMAND : RUNUSER_SHELL,
    name,
  );

/** `coproc CMD`, `coproc NAME { ...; }`: the command starts after the name when a group follows. */
const coproc: SpecialReader = (words, name) => {
  const out = emptyClassified(name, null);
  let start = words[2]?.text === "{" ? 2 : 1;
  // A keyword, not a program: NAME=value words before the command are its assignments.
  while (start < words.length - 1 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[start]!.raw)) out.assignments.push(words[start++]!.text.split("=")[0]!);
  if (words.length > start) out.inner.push({ start, end: words.length, via: name });
  return out;
};

const PERL = defineSpec({
  options: "-e:runs -E:runs -M:runs -m:runs -I:path -n -p -a -l -F:text -0?=text -w -W -X -c -s -T -t -v -V -x -i?=text!",
  operands: { lead: ["read"], leadUnless: ["-e", "-E"], rest: "read", optionsFirst: true },
  scriptOperand: true,
});
const perl: SpecialReader = (words, name) => {
  const out = classifyWords(words, PERL, name);
  inPlace(out, words);
  return out;
};

const MAKE = defineSpec(RUNTIME_PROGRAMS.make!);
/** `make VAR=value` overrides a variable of the Makefile (SHELL, CC, ...), which can change what it runs. */
const make: SpecialReader = (words, name) => {
  const out = classifyWords(words, MAKE, name);
  const override = out.operands.find((w) => /^[A-Za-z_][A-Za-z0-9_.]*[:+?]?=/.test(w.text));
  if (override) out.risk ??= `make ${override.raw} overrides a variable of the Makefile, which can change what it runs`;
  return out;
};

const SQLITE = defineSpec({
  options:
    "--batch --bail --csv --json --line --list --markdown --table --box --column --header --noheader " +
    "--readonly --echo --nullvalue:text --separator:text --newline:text --cmd:text --init:runs --safe " +
    "--version --help --interactive!",
  operands: { lead: ["write"], rest: "text" },
});
/** sqlite3 dot-commands run programs (`.shell`, `.system`) and touch files (`.output`, `.import`, `.load`). */
const sqlite: SpecialReader = (words, name) => {
  const out = classifyWords(
    words.map((w) => (/^-[a-z]{3,}$/.test(w.text) ? { ...w, text: `-${w.text}` } : w)),
    SQLITE,
    name,
  );
  if (words.some((w, i) => i > 0 && /(^|\s|;)\.[a-z]/.test(w.text))) out.risk ??= `${name} is given dot-commands, which can run programs and touch files`;
  if (words.some((w, i) => i > 0 && SQL_FILES.test(w.text)))
    out.risk ??= `the SQL given to ${name} touches files or runs programs (readfile, writefile, edit, ATTACH, VACUUM INTO, extensions)`;
  return out;
};
/** What the sqlite3 shell's SQL can do beyond the database: its file and editor functions, other database files. */
const SQL_FILES = /\b(readfile|writefile|edit|load_extension|fts3_tokenizer)\s*\(|\battach\b|\bvacuum\b[\s\S]*\binto\b/i;

const JQ = defineSpec(FILE_PROGRAMS.jq!);
const YQ = defineSpec(FILE_PROGRAMS.yq!);
/** jq's `import` and `include` load modules and JSON data files from its search path (`.` among them). */
function jqReader(spec: typeof JQ): SpecialReader {
  return (words, name) => {
    const out = classifyWords(words, spec, name);
    if (words.some((w, i) => i > 0 && /^(-[a-zA-Z]*f[a-zA-Z]*|--from-file(=.*)?)$/.test(w.text)))
      out.risk ??= `${name} -f runs a program file, whose imports the gate does not read`;
    const [program] = out.operands;
    if (program && /\b(import|include)\b/.test(program.text)) out.risk ??= `the ${name} program imports files the gate does not check`;
    return out;
  };
}

export const SPECIAL_READERS: ReadonlyMap<string, SpecialReader> = new Map<string, SpecialReader>([
  ["find", find],
  ["dd", dd],
  ["sed", sed],
  ["awk", awk],
  ["gawk", awk],
  ["mawk", awk],
  ["nawk", awk],
  ["tar", tar],
  ...[...SHELLS].map((s) => [s, shell] as [string, SpecialReader]),
  ["env", env],
  ["command", command],
  ["set", set],
  ["make", make],
  ["sqlite3", sqlite],
  ["runuser", runuser],
  ["coproc", coproc],
  ["perl", perl],
  ["jq", jqReader(JQ)],
  ["yq", jqReader(YQ)],
]);
