import { escapeCodePoint, showText } from "./safe-text.js";

/** Scripts whose letters pass for each other's (a Cyrillic `а` for a Latin `a`, a Greek `ο` for an `o`). */
const SCRIPTS: [string, RegExp][] = [
  ["Latin", /\p{Script=Latin}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["Armenian", /\p{Script=Armenian}/u],
  ["Cherokee", /\p{Script=Cherokee}/u],
  ["Coptic", /\p{Script=Coptic}/u],
];
/** Fullwidth and other compatibility letters and digits: Latin to the eye, something else to a program. */
const COMPATIBILITY = /[\uFF01-\uFF5E\u{1D400}-\u{1D7FF}\uFB00-\uFB06]/u;
/** A word of a name or a path: letters, marks, digits, `_`; a path's `/` and a name's `.` part words. */
const WORD = /[\p{L}\p{M}\p{N}_\uFB00-\uFB06]+/gu;

export interface LookAlike {
  /** The word as shown, its foreign letters escaped: `c\u0430t`. */
  word: string;
  /** The scripts it mixes, or `compatibility` for fullwidth and styled letters. */
  scripts: string[];
}

function scriptsOf(word: string): string[] {
  const found = new Set<string>();
  for (const ch of word) {
    if (COMPATIBILITY.test(ch)) found.add("compatibility");
    else for (const [name, re] of SCRIPTS) if (re.test(ch)) found.add(name);
  }
  return [...found];
}

const foreign = (ch: string, main: RegExp): boolean => COMPATIBILITY.test(ch) || (!main.test(ch) && SCRIPTS.some(([, re]) => re.test(ch)));

/** The word with every letter outside its main script written as an escape. */
function escapeForeign(word: string, main: string): string {
  const re = SCRIPTS.find(([name]) => name === main)![1];
  let out = "";
  for (const ch of word) out += foreign(ch, re) ? escapeCodePoint(ch) : showText(ch).text;
  return out;
}

/**
 * Words that mix scripts whose letters look alike, or use compatibility letters: `cаt` with a
 * Cyrillic `а` reads as `cat` and is another program. Each word once, at most `max`.
 */
export function lookAlikes(text: string, max = 10): LookAlike[] {
  const seen = new Map<string, LookAlike>();
  for (const [word] of text.matchAll(WORD)) {
    if (seen.size >= max) break;
    if (/^[\p{ASCII}]*$/u.test(word) || seen.has(word)) continue;
    const scripts = scriptsOf(word);
    if (scripts.length < 2 && !scripts.includes("compatibility")) continue;
    const main = scripts.includes("Latin") ? "Latin" : (scripts.find((s) => s !== "compatibility") ?? "Latin");
    seen.set(word, { word: escapeForeign(word, main), scripts });
  }
  return [...seen.values()];
}

/**
 * Punctuation a person reads as shell syntax and the shell reads as a plain character: typographic
 * and fullwidth quotes that quote nothing, and look-alikes of `;`, `|`, `&`, `$`, `\\`, `<`, `>`.
 * `git commit -m “tidy; rm -rf src”` runs `rm -rf src`.
 */
const SHELL_LOOK_ALIKES =
  /[\u00AB\u00BB\u02B9-\u02BC\u02C8\u02EE\u2018-\u201F\u2032-\u2037\u2039\u203A\u2216\u2223\u01C0\u037E\uFE54\uFE60\uFE64\uFE65\uFE68\uFE69\uFF02\uFF04\uFF06\uFF07\uFF1B\uFF1C\uFF1E\uFF3C\uFF40\uFF5C]/gu;

/** The shell look-alikes in a command, each once (`“ (U+201C)`), at most `max`. */
export function shellLookAlikes(command: string, max = 6): string[] {
  const found = [...new Set(command.match(SHELL_LOOK_ALIKES) ?? [])].slice(0, max);
  return found.map((ch) => `${ch} (U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})`);
}
