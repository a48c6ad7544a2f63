import type { ShellAnalysis, AnalyzedCommand } from "./shell/analyze.js";
import { INTERPRETERS } from "./shell/programs.js";
import { programName, SHELLS } from "./shell/wrappers.js";

const SYSTEM_FILES = /^\/etc\/(passwd|shadow|sudoers|group|gshadow)$/;
const ROOT_OR_HOME = /^(\/+\*?|~\/?\*?|\$HOME\/?\*?|\$\{HOME\}\/?\*?|\/(home|root|usr|etc|var|bin|lib|boot)\/?\*?)$/;
// The name starts at a word boundary and is at most 64 characters, so a long word cannot make
// the match backtrack quadratically.
const FORK_BOMB = /(?<![\w:.])([\w:.]{1,64})\s*\(\)\s*\{[^}]*\1\s*\|\s*\1\s*&/;
const FETCHERS = new Set(["curl", "wget", "fetch", "aria2c"]);

function rmEverything(words: string[]): boolean {
  const flags = words.filter((w) => w.startsWith("-")).join(" ");
  const recursive = /(^|\s)-[a-zA-Z]*[rR]|--recursive/.test(flags);
  return recursive && words.slice(1).some((w) => ROOT_OR_HOME.test(w));
}

function commandCritical(cmd: AnalyzedCommand, fetches: boolean): string | null {
  const words = cmd.words.map((w) => w.text);
  const program = programName(words[0] ?? "");
  if (program === "rm" && rmEverything(words)) return "rm -r on / or the home directory";
  if (/^mkfs(\.|$)/.test(program) || program === "mke2fs" || program === "wipefs") return `${program} formats a file system`;
  if (program === "dd" && words.some((w) => /^of=\/dev\//.test(w))) return "dd writes to a device";
  if (["shutdown", "reboot", "halt", "poweroff"].includes(program)) return `${program} stops the host`;
  if (program === "init" && /^[06]$/.test(words[1] ?? "")) return "init stops the host";
  if (program === "systemctl" && /^(poweroff|reboot|halt|kexec)$/.test(words[1] ?? "")) return "systemctl stops the host";
  const runsCode = SHELLS.has(program) || INTERPRETERS.has(program) || program === "source" || program === "." || program === "eval";
  if (fetches && runsCode && (cmd.stdin === "pipe" || cmd.words.some((w) => w.dynamic))) return "it runs code fetched from the network";
  if (cmd.writes.some((w) => SYSTEM_FILES.test(w.text))) return "it writes a system account file";
  if (program === "tee" && words.slice(1).some((w) => SYSTEM_FILES.test(w))) return "it writes a system account file";
  return null;
}

/** Destructive patterns that raise an allow to ask in every mode but yolo (DESIGN §2.5). */
export function criticalInShell(analysis: ShellAnalysis, source: string): string | null {
  if (FORK_BOMB.test(source)) return "a fork bomb";
  const fetches = analysis.commands.some((c) => FETCHERS.has(programName(c.words[0]?.text ?? "")));
  for (const cmd of analysis.commands) {
    const found = commandCritical(cmd, fetches);
    if (found) return found;
  }
  if (analysis.loose.writes.some((w) => SYSTEM_FILES.test(w.text))) return "it writes a system account file";
  return null;
}

export function criticalInFile(tool: string, absolute: string): string | null {
  return (tool === "write_file" || tool === "edit_file") && SYSTEM_FILES.test(absolute) ? "it writes a system account file" : null;
}
