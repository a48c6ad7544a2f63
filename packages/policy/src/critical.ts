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

/** Absolute paths a word of the command may name (after `cd`, `~`, `$HOME`, `..`), or none when unknown. */
export type PathsOf = (word: string) => readonly string[];

function rmEverything(cmd: AnalyzedCommand, home: string, pathsOf: PathsOf): boolean {
  const words = cmd.words.map((w) => w.text);
  const options = words.slice(1).filter((w) => w.startsWith("-"));
  const recursive = options.some((w) => /^-[a-zA-Z]*[rR]/.test(w) || w === "--recursive");
  if (!recursive) return false;
  return cmd.words.slice(1).some((w) => {
    if (w.text.startsWith("-")) return false;
    const glob = w.glob && /^\/?\*$|\/\*$/.test(w.text);
    const base = glob ? w.text.replace(/\/?\*$/, "") || "/" : w.text;
    return pathsOf(base).some((p) => p === "/" || p === home || SYSTEM_DIRS.test(p));
  });
}

/** A destructive pattern in one command, with the paths it names resolved (DESIGN §2.5). */
export function commandCritical(cmd: AnalyzedCommand, home: string, pathsOf: PathsOf, fetches: boolean): string | null {
  const program = cmd.program;
  const second = cmd.words[1]?.text ?? "";
  if (program === "rm" && rmEverything(cmd, home, pathsOf)) return "rm -r on / or the home directory (or a system directory)";
  if ((program.startsWith("mkfs") && (program.length === 4 || program[4] === ".")) || program === "mke2fs" || program === "wipefs")
    return `${program} formats a file system`;
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

export function lineCritical(source: string, commands: readonly AnalyzedCommand[]): { forkBomb: string | null; fetches: boolean } {
  // The pattern needs `()`; most lines have none, and then the pattern need not be tried at every position.
  const forkBomb = source.includes("()") && FORK_BOMB.test(source);
  return { forkBomb: forkBomb ? "a fork bomb" : null, fetches: commands.some((c) => FETCHERS.has(c.program)) };
}

export function writesSystemFile(absolute: string): boolean {
  return SYSTEM_FILES.test(absolute);
}

export function criticalInFile(tool: string, absolute: string): string | null {
  return (tool === "write_file" || tool === "edit_file") && SYSTEM_FILES.test(absolute) ? "it writes a system account file" : null;
}
