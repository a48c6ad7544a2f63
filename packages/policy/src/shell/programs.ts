import type { ShellWord } from "./words.js";

const set = (...items: string[]): ReadonlySet<string> => new Set(items);

/** Programs that read or copy the files they are given: a read-denied argument makes them deny. */
export const FILE_READERS = set(
  "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "sed", "awk", "gawk", "cp",
  "base64", "xxd", "od", "strings", "source", ".", "tac", "nl", "hexdump", "zcat", "bat", "diff", "cmp",
  "sort", "uniq", "cut", "paste", "jq", "yq", "scp", "rsync", "tar", "zip", "gzip", "openssl", "vi", "vim", "nano",
);

/** Programs that change or remove the files they are given: denied on protected paths. */
export const FILE_WRITERS = set(
  "rm", "mv", "cp", "ln", "tee", "dd", "truncate", "chmod", "chown", "chgrp", "touch", "install", "sed",
  "shred", "unlink", "rsync", "patch", "vi", "vim", "nano",
);

/** Programs that never open their arguments as files. */
export const NO_FILE_ARGS = set("echo", "printf", "true", "false", ":", "test", "[", "which", "type", "cd", "pushd", "export", "unset", "local", "declare", "readonly", "typeset", "mkdir", "sleep", "exit", "return", "kill", "set", "shift");

/** Interpreters that run a program read from standard input when given no script. */
export const INTERPRETERS = set("python", "python3", "python2", "node", "perl", "ruby", "php", "lua", "Rscript");

/** Assignments that change what a command runs or loads (DESIGN §2.4, never allow). */
export function changesWhatRuns(name: string): boolean {
  return /^(PATH|LD_[A-Z_]+|DYLD_[A-Z_]+|BASH_ENV|ENV|IFS|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|GLOBIGNORE|BASH_FUNC_.*|GIT_SSH_COMMAND|GIT_EXEC_PATH|GIT_CONFIG_.*|PYTHONPATH|PYTHONSTARTUP|NODE_OPTIONS|PERL5OPT|PERL5LIB|RUBYOPT)$/.test(name);
}

/** How many leading positional words are not files (a grep pattern, a sed or awk script). */
function scriptPositionals(program: string, words: ShellWord[]): number {
  const has = (...opts: string[]) => words.some((w) => opts.some((o) => w.text === o || w.text.startsWith(`${o}=`)));
  switch (program) {
    case "grep": case "egrep": case "fgrep": case "rg":
      return has("-e", "-f", "--regexp", "--file") ? 0 : 1;
    case "sed":
      return has("-e", "-f", "--expression", "--file") ? 0 : 1;
    case "awk": case "gawk":
      return has("-f", "--file") ? 0 : 1;
    case "jq": case "yq":
      return 1;
    default:
      return 0;
  }
}

/** The words of a command that may name files: positionals, and values of `--opt=value` and `@file`. */
export function fileOperands(program: string, words: ShellWord[]): ShellWord[] {
  if (NO_FILE_ARGS.has(program)) return [];
  const out: ShellWord[] = [];
  let skip = scriptPositionals(program, words);
  let options = true;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (options && w.text === "--") {
      options = false;
      continue;
    }
    if (options && w.text.startsWith("-") && w.text.length > 1) {
      const eq = w.text.indexOf("=");
      if (eq > 0) out.push({ ...w, text: w.text.slice(eq + 1) });
      continue;
    }
    if (skip > 0) {
      skip--;
      continue;
    }
    out.push(w);
    if (w.text.includes("@")) out.push({ ...w, text: w.text.slice(w.text.lastIndexOf("@") + 1) });
  }
  return out;
}

/** The option script of sed (`-e S`) or the first positional, for the dangerous-command checks. */
function scripts(words: ShellWord[], flag: string): string[] {
  const out: string[] = [];
  let positional = true;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.text;
    if (w === flag || w === "--expression") out.push(words[++i]?.text ?? "");
    else if (w.startsWith("-")) continue;
    else if (positional) {
      out.push(w);
      positional = false;
    }
  }
  return out;
}

/** Scripts longer than this are not scanned (the scan backtracks); their command asks. */
const MAX_SCRIPT_SCAN = 4096;
const SED_RUNS_OR_WRITES = /(^|[;{}\n])\s*([0-9$,/!\\^.*[\]]*\s*)?[wWeR]\b|s(.).*\3.*\3[gpiImM0-9]*[we]/;

/** Options that make a reading command run programs or write files: its `allow` becomes `ask`. */
export function dangerousOption(program: string, words: ShellWord[]): string | null {
  const texts = words.slice(1).map((w) => w.text);
  const has = (test: (t: string) => boolean) => texts.find(test);
  switch (program) {
    case "find": {
      const opt = has((t) => /^-(exec|execdir|ok|okdir|delete|fprint0?|fprintf|fls)$/.test(t));
      return opt ? `find ${opt} runs commands or changes files` : null;
    }
    case "rg": {
      const opt = has((t) => t === "--pre" || t.startsWith("--pre="));
      return opt ? "rg --pre runs a program on every file" : null;
    }
    case "sed": {
      if (has((t) => t === "--in-place" || t.startsWith("--in-place=") || /^-[a-zA-Z]*i/.test(t))) return "sed -i edits files in place";
      if (scripts(words, "-e").some((s) => s.length > MAX_SCRIPT_SCAN)) return "the sed script is too long to check";
      return scripts(words, "-e").some((s) => SED_RUNS_OR_WRITES.test(s)) ? "the sed script writes files or runs commands (w, e)" : null;
    }
    case "awk": case "gawk":
      return scripts(words, "-e").some((s) => /system\s*\(|\|\s*"|>\s*"|\|&|>\s*[a-zA-Z_$]|getline/.test(s)) ? "the awk program runs commands or writes files" : null;
    case "git": {
      const opt = has((t) => t === "-c" || /^-c./.test(t) || t.startsWith("--config-env") || t.startsWith("--output") || t.startsWith("--upload-pack") || t.startsWith("--receive-pack") || t.startsWith("--exec"));
      return opt ? `git ${opt} can run commands or write files` : null;
    }
    case "tar": {
      const opt = has((t) => /^--(to-command|use-compress-program|checkpoint-action|info-script|new-volume-script)/.test(t) || t === "-I");
      return opt ? `tar ${opt} runs a program` : null;
    }
    default:
      return null;
  }
}
