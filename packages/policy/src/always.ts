import type { CommandInfo, Decision } from "./decision.js";
import { networkSuggestion, overbroadHost } from "./network/host-suggestion.js";
import { NETWORK_TOOL } from "./network/network-tool.js";
import { prefixLength } from "./shell/arity.js";

const GLOB_CHARS = /[*?[\]{}()!+@\\]/g;

/** A word as a pattern that matches only itself: glob characters from the command are escaped. */
export function escapeGlob(word: string): string {
  return word.replace(GLOB_CHARS, (c) => `\\${c}`);
}

/** `git push origin main` -> `git push *`; `npm run build` -> `npm run build`; `cat x` -> `cat *`. */
export function commandPattern(words: readonly string[]): string {
  const n = prefixLength(words);
  const prefix = words.slice(0, n).map(escapeGlob).join(" ");
  return words.length > n ? `${prefix} *` : prefix;
}

/** A wrapper keeps its own words and its command's prefix: `sudo apt-get install x` -> `sudo apt-get *`. */
function patternOf(info: CommandInfo): string {
  const { words, wrapper } = info;
  if (!wrapper) return commandPattern(words);
  const inner = words.slice(wrapper.innerIndex);
  const innerPrefix = inner.slice(0, prefixLength(inner));
  const kept = [...words.slice(0, wrapper.innerIndex), ...innerPrefix].map(escapeGlob).join(" ");
  return words.length > wrapper.innerIndex + innerPrefix.length ? `${kept} *` : kept;
}

/** Programs whose name followed by `*` alone would allow any command. */
const RUNS_ANYTHING = new RegExp(
  `^(${[
    ...["sudo", "doas", "pkexec", "run0", "su", "runuser", "env", "xargs", "eval", "exec", "command", "builtin", "nohup", "nice"],
    ...["ionice", "timeout", "time", "stdbuf", "setsid", "flock", "chroot", "unshare", "nsenter", "setpriv", "strace", "ltrace"],
    ...["busybox", "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "npx", "pnpx", "bunx", "watch", "script", "parallel", "find"],
  ].join("|")})$`,
);

/**
 * Why a pattern may never be saved by an "always" answer: it matches every command or path (`*`,
 * `**`, `/**`), or a program that runs other programs followed only by globs (`sudo *`).
 */
export function overbroadPattern(pattern: string, tool?: string): string | null {
  if (tool === NETWORK_TOOL) return overbroadHost(pattern);
  const trimmed = pattern.trim();
  if (trimmed === "") return "an empty pattern";
  if (/^[\s*?/.~]*$/.test(trimmed)) return `"${trimmed}" matches every command or path`;
  const [head, ...rest] = trimmed.split(/\s+/);
  if (rest.length > 0 && rest.every((w) => /^[*?]+$/.test(w)) && RUNS_ANYTHING.test(head!)) return `"${trimmed}" would allow ${head} to run any command`;
  if (/^[*?]/.test(trimmed) && !trimmed.includes("/")) return `"${trimmed}" starts with a glob, so it matches commands of every name`;
  return null;
}

/**
 * The patterns an "always" answer would store: one per shell sub-command that asked, the path for
 * a file tool, the subject for other tools (docs/design.md, "Shell commands"). None for a critical call, none for
 * a command that asks because it writes a file that steers a program (only a rule naming the file
 * opens it), none for a command the rules allow that asks all the same, and none that would match
 * everything.
 */
export function suggestPatterns(decision: Decision): string[] {
  if (decision.critical) return [];
  if (decision.tool === NETWORK_TOOL) return networkSuggestion(decision.subject);
  const candidates =
    decision.tool !== "shell_exec"
      ? [escapeGlob(decision.subject)]
      : decision.subcommands.filter((v) => v.action === "ask" && v.command && !v.steers && !v.pastRules).map((v) => patternOf(v.command!));
  const out: string[] = [];
  for (const p of candidates) if (!out.includes(p) && overbroadPattern(p) === null) out.push(p);
  return out;
}
