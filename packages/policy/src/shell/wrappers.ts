import type { ShellWord } from "./words.js";

/** What a wrapper runs: an inner command (words), or a script string to parse as shell. */
export type Wrapped =
  | { kind: "command"; via: string; innerIndex: number; privileged: boolean; unknownArgs: boolean }
  | { kind: "script"; via: string; script: ShellWord[] };

interface OptionSpec {
  /** Options that take the next word as their value. */
  valued: ReadonlySet<string>;
  /** Positional words consumed before the inner command (`timeout 5 cmd`). */
  positional?: number;
  /** NAME=value words before the inner command are assignments (sudo, env). */
  assignments?: boolean;
  privileged?: boolean;
  unknownArgs?: boolean;
}

const set = (...items: string[]): ReadonlySet<string> => new Set(items);

const WRAPPERS: ReadonlyMap<string, OptionSpec> = new Map(Object.entries({
  sudo: { valued: set("-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "--user", "--group", "--host", "--prompt", "--chdir"), assignments: true, privileged: true },
  doas: { valued: set("-u", "-C"), privileged: true },
  env: { valued: set("-u", "-C", "--unset", "--chdir"), assignments: true },
  nice: { valued: set("-n", "--adjustment") },
  nohup: { valued: set() },
  timeout: { valued: set("-s", "-k", "--signal", "--kill-after"), positional: 1 },
  time: { valued: set("-f", "-o", "--format", "--output"), assignments: true },
  command: { valued: set() },
  exec: { valued: set("-a") },
  xargs: { valued: set("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--replace", "--max-lines"), unknownArgs: true },
  stdbuf: { valued: set("-i", "-o", "-e", "--input", "--output", "--error") },
  ionice: { valued: set("-c", "-n", "-p", "--class", "--classdata") },
  setsid: { valued: set() },
  chroot: { valued: set("--userspec", "--groups"), positional: 1 },
  busybox: { valued: set() },
  unbuffer: { valued: set() },
  taskset: { valued: set(), positional: 1 },
  coproc: { valued: set(), assignments: true },
} satisfies Record<string, OptionSpec>));

export const SHELLS: ReadonlySet<string> = set("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish");
export const PRIVILEGED: ReadonlySet<string> = set("sudo", "doas");

export function programName(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash === -1 ? word : word.slice(slash + 1);
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Index of the first word after the wrapper's own options, or -1 when it runs nothing. */
function innerStart(words: ShellWord[], spec: OptionSpec): number {
  let i = 1;
  let positional = spec.positional ?? 0;
  while (i < words.length) {
    const w = words[i]!.text;
    if (w === "--") return i + 1 < words.length ? i + 1 : -1;
    if (w.startsWith("-") && w.length > 1) {
      const name = w.includes("=") ? w.slice(0, w.indexOf("=")) : w;
      i += spec.valued.has(name) && !w.includes("=") ? 2 : 1;
    } else if (spec.assignments && ASSIGNMENT.test(w)) i++;
    else if (positional > 0) {
      positional--;
      i++;
    } else return i;
  }
  return -1;
}

/** `bash -c STRING`, `sh -lc STRING`, `su -c STRING`: the index of STRING, or -1. */
function scriptOption(words: ShellWord[]): number {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.text;
    if (w === "--") return -1;
    if (w === "--command") return i + 1;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(w)) return i + 1;
    if (!w.startsWith("-") && !w.startsWith("+")) return -1;
  }
  return -1;
}

function findExec(words: ShellWord[]): Wrapped[] {
  const found: Wrapped[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.text;
    if (w === "-exec" || w === "-execdir" || w === "-ok" || w === "-okdir") {
      found.push({ kind: "command", via: `find ${w}`, innerIndex: i + 1, privileged: false, unknownArgs: false });
    }
  }
  return found;
}

/** The commands and scripts that a wrapper would run (DESIGN §2.4, wrappers). */
export function unwrap(words: ShellWord[]): Wrapped[] {
  const head = words[0];
  if (!head) return [];
  const name = programName(head.text);
  if (name === "find") return findExec(words);
  if (name === "eval") return words.length > 1 ? [{ kind: "script", via: "eval", script: words.slice(1) }] : [];
  if (SHELLS.has(name) || name === "su") {
    const at = scriptOption(words);
    const script = at > 0 ? words[at] : undefined;
    return script ? [{ kind: "script", via: `${name} -c`, script: [script] }] : [];
  }
  if (name === "env") {
    const split = words.findIndex((w) => w.text === "-S" || w.text === "--split-string");
    if (split > 0 && words[split + 1]) return [{ kind: "script", via: "env -S", script: words.slice(split + 1) }];
  }
  if (name === "command" && words.some((w) => w.text === "-v" || w.text === "-V")) return [];
  const spec = WRAPPERS.get(name);
  if (!spec) return [];
  const start = innerStart(words, spec);
  if (start < 0) return [];
  return [{ kind: "command", via: name, innerIndex: start, privileged: spec.privileged ?? false, unknownArgs: spec.unknownArgs ?? false }];
}

/** The NAME=value words a wrapper sets for its inner command (`env PATH=/x cmd`, `sudo LD_PRELOAD=...`). */
export function wrapperAssignments(words: ShellWord[], innerIndex: number): string[] {
  return words.slice(1, innerIndex).filter((w) => ASSIGNMENT.test(w.text)).map((w) => w.text.slice(0, w.text.indexOf("=")));
}
