import type { CommandInfo, Decision } from "./decision.js";
import { prefixLength } from "./shell/arity.js";

/** `git push origin main` -> `git push *`; `npm run build` -> `npm run build`; `cat x` -> `cat *`. */
export function commandPattern(words: readonly string[]): string {
  const n = prefixLength(words);
  const prefix = words.slice(0, n).join(" ");
  return words.length > n ? `${prefix} *` : prefix;
}

function patternOf(info: CommandInfo): string {
  const { words, wrapper } = info;
  if (!wrapper) return commandPattern(words);
  if (!wrapper.privileged) return `${words[0]} *`;
  const inner = words.slice(wrapper.innerIndex);
  const innerPrefix = inner.slice(0, prefixLength(inner));
  return `${[...words.slice(0, wrapper.innerIndex), ...innerPrefix].join(" ")} *`;
}

/**
 * The patterns an "always" answer would store: one per shell sub-command that asked, the path for
 * a file tool, the subject for other tools (DESIGN §2.4, end).
 */
export function suggestPatterns(decision: Decision): string[] {
  if (decision.tool !== "shell_exec") return [decision.subject || "*"];
  const out: string[] = [];
  for (const v of decision.subcommands) {
    if (v.action !== "ask" || !v.command) continue;
    const p = patternOf(v.command);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}
