import type { AnalyzedCommand } from "./shell/analyze.js";
import { runsCode } from "./shell/programs/runners.js";
import type { ShellWord } from "./shell/words.js";

const SYSTEM_FILES = /^\/etc\/(passwd|shadow|sudoers|group|gshadow)$/;
const SYSTEM_DIRS = /^\/(home|root|usr|etc|var|bin|sbin|lib|lib64|boot|opt|srv)$/;
// The name starts at a word boundary and is at most 64 characters, so a long word cannot make
// the match backtrack quadratically.
const FORK_BOMB = /(?<![\w:.])([\w:.]{1,64})\s*\(\)\s*\{[^}]*\1\s*\|\s*\1\s*&/;
const FETCHERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "xh"]);
const STOPS_HOST = new Set(["shutdown", "reboot", "halt", "poweroff"]);
const WIPES = new Set(["wipefs", "blkdiscard"]);
/** Programs that change permissions, owners or attributes, where `-R` means recursive. */
const CHANGES_MODES = new Set(["chmod", "chown", "chgrp", "chattr", "setfacl"]);
const SIGNALS_BY_NAME = new Set(["pkill", "killall"]);
/** pkill's and killall's options that take a value, in their short and long spellings. */
const TAKES_VALUE = /^(-[gGPstuUFeOyY]|--(signal|pgroup|group|parent|session|terminal|euid|uid|pidfile|ns|nslist|older-than|younger-than|user))$/;
/** Programs that only print their arguments. */
const PRINTERS = new Set(["echo", "printf"]);

/** Absolute paths a word of the command may name (after `cd`, `~`, `$HOME`, `..`), or none when unknown. */
export type PathsOf = (word: string) => readonly string[];

/** A recursive command (its recursive option matched by `short`) on `/`, the home directory or a system directory. */
function recursiveOnEverything(cmd: AnalyzedCommand, short: RegExp, home: string, pathsOf: PathsOf): boolean {
  const options = cmd.words.slice(1).filter((w) => w.text.startsWith("-"));
  if (!options.some((w) => short.test(w.text) || w.text === "--recursive")) return false;
  return cmd.words.slice(1).some((w) => {
    if (w.text.startsWith("-")) return false;
    const glob = w.glob && /^\/?\*$|\/\*$/.test(w.text);
    const base = glob ? w.text.replace(/\/?\*$/, "") || "/" : w.text;
    return pathsOf(base).some((p) => p === "/" || p === home || SYSTEM_DIRS.test(p));
  });
}

/** A destructive pattern in one command, with the paths it names resolved (docs/design.md, "Tiers, modes and critical patterns"). */
export function commandCritical(cmd: AnalyzedCommand, home: string, pathsOf: PathsOf, fetches: boolean): string | null {
  const program = cmd.program;
  const second = cmd.words[1]?.text ?? "";
  if (program === "rm" && recursiveOnEverything(cmd, /^-[a-zA-Z]*[rR]/, home, pathsOf)) return "rm -r on / or the home directory (or a system directory)";
  if (CHANGES_MODES.has(program) && recursiveOnEverything(cmd, /^-[a-zA-Z]*R/, home, pathsOf))
    return `${program} -R on / or the home directory (or a system directory)`;
  if ((program.startsWith("mkfs") && (program.length === 4 || program[4] === ".")) || program === "mke2fs") return `${program} formats a file system`;
  if (WIPES.has(program)) return `${program} wipes a device`;
  if (program === "kill" && killsEverything(cmd.words.slice(1).map((w) => w.text))) return "kill -1 signals every process";
  if (program === "killall5" || (SIGNALS_BY_NAME.has(program) && signalsEveryProcess(cmd.words.slice(1).map((w) => w.text))))
    return `${program} signals every process of a user, or every process`;
  if (program === "dd" && cmd.words.some(({ text: w }) => w.startsWith("of=") && pathsOf(w.slice(3)).some((p) => p.startsWith("/dev/"))))
    return "dd writes to a device";
  if (STOPS_HOST.has(program)) return `${program} stops the host`;
  if (program === "init" && /^[06]$/.test(second)) return "init stops the host";
  if (program === "systemctl" && /^(poweroff|reboot|halt|kexec)$/.test(second)) return "systemctl stops the host";
  if (fetches && runsCode(program) && (cmd.stdin === "pipe" || cmd.words.some((w) => w.dynamic))) return "it runs code fetched from the network";
  if (cmd.writes.length === 0 && !cmd.classified?.writes.length) return null;
  const writesAccount = (w: ShellWord): boolean => pathsOf(w.text).some((p) => SYSTEM_FILES.test(p));
  if (cmd.writes.some(writesAccount) || cmd.classified?.writes.some(writesAccount)) return "it writes a system account file";
  return null;
}

/** `kill [-SIG | -s SIG | -n N] [--] PID...` with the pid -1, which means every process the user may signal. */
function killsEverything(args: readonly string[]): boolean {
  let i = 0;
  if (args[i] === "-s" || args[i] === "-n") i += 2;
  // `kill -1 PID` sends signal 1; a lone `kill -1` names no signal but the pid.
  else if (args[i]?.startsWith("-") && args[i] !== "--" && (args[i] !== "-1" || args.length > 1)) i += 1;
  if (args[i] === "--") i += 1;
  return args.slice(i).some((a) => a === "-1");
}

/** pkill or killall by user or by a pattern that matches every name, with no narrower pattern. */
function signalsEveryProcess(args: readonly string[]): boolean {
  const operands: string[] = [];
  let byUser = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (/^(-u|-U|--euid|--uid|--user)(=|$)/.test(a) || /^-[uU]./.test(a)) byUser = true;
    if (TAKES_VALUE.test(a)) i++;
    else if (!a.startsWith("-")) operands.push(a);
  }
  if (operands.length === 0) return byUser;
  return operands.every(matchesEveryName);
}

function matchesEveryName(pattern: string): boolean {
  try {
    const re = new RegExp(pattern);
    return re.test("") || ["a", "Z", "0", "_", "-", "."].every((name) => re.test(name));
  } catch {
    return false;
  }
}

/**
 * The source with the literal arguments of printing commands blanked, when nothing in the line
 * runs code: `echo ':(){ :|:& };:'` prints a fork bomb, it runs none.
 */
function withoutPrintedText(source: string, commands: readonly AnalyzedCommand[]): string {
  if (commands.some((c) => runsCode(c.program))) return source;
  let out = source;
  for (const c of commands) {
    if (c.depth !== 0 || c.via !== null || !PRINTERS.has(c.program)) continue;
    for (const w of c.words.slice(1)) if (!w.dynamic) out = out.replace(w.raw, " ".repeat(w.raw.length));
  }
  return out;
}

export function lineCritical(source: string, commands: readonly AnalyzedCommand[]): { forkBomb: string | null; fetches: boolean } {
  // The pattern needs `()`; most lines have none, and then the pattern need not be tried at every position.
  const forkBomb = source.includes("()") && FORK_BOMB.test(source) && FORK_BOMB.test(withoutPrintedText(source, commands));
  return { forkBomb: forkBomb ? "a fork bomb" : null, fetches: commands.some((c) => FETCHERS.has(c.program)) };
}

export function writesSystemFile(absolute: string): boolean {
  return SYSTEM_FILES.test(absolute);
}

export function criticalInFile(tool: string, absolute: string): string | null {
  return (tool === "write_file" || tool === "edit_file") && SYSTEM_FILES.test(absolute) ? "it writes a system account file" : null;
}
