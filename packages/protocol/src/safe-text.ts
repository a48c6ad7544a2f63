import { UnescapeError } from "./errors.js";

/**
 * Text made safe to show a person: every code point that a screen would interpret, hide or draw
 * as something else is written as a visible escape, so that what is read is what runs. A text
 * with nothing to escape is shown as it is, backslashes and all; one with something to escape has
 * its backslashes doubled too (as git quotes a path), so the escaping can be undone
 * (`unescapeShown`): every other backslash starts an escape.
 */

/** The brackets of the out-of-sight markers: escaped in content so that no content can forge a marker. */
const MARKER_BRACKETS = /[⟦⟧]/u;
const NAMED: Record<string, string> = { "\b": "\\b", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f", "\v": "\\v" };
const UNNAMED: Record<string, string> = { b: "\b", t: "\t", n: "\n", r: "\r", f: "\f", v: "\v", "\\": "\\" };

export interface ShownText {
  /** The text with every hidden code point escaped: safe to print. */
  text: string;
  /** Whether anything was escaped (and so every backslash doubled): the text reads as escapes. */
  escaped: boolean;
  /** How many hidden code points were escaped (tabs and newlines not counted: whitespace a person sees). */
  hidden: number;
  /** The escapes written, each once, in the order first met (`\b`, `\u202E`). */
  kinds: string[];
}

const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, "0");

/** The visible escape of one code point. */
export function escapeCodePoint(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const cp = ch.codePointAt(0)!;
  if (cp <= 0xff) return `\\x${hex(cp, 2).toLowerCase()}`;
  return cp <= 0xffff ? `\\u${hex(cp, 4)}` : `\\u{${hex(cp, 5)}}`;
}

/**
 * What is never shown as itself: control characters (C0, DEL, C1), format characters (bidi
 * controls and isolates, zero-width marks, tags), line and paragraph separators, lone surrogates,
 * every default-ignorable code point, spaces other than U+0020 (no-break and the sized ones:
 * they look like a space, but no shell splits on them), and the symbols drawn as nothing (the
 * blank Braille pattern, the musical null notehead).
 * The markers' brackets are escaped too, so that no content can forge a marker.
 */
const CLASS = String.raw`[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Zs}\p{Default_Ignorable_Code_Point}\u2800\u{1D159}⟦⟧]`;
/** What `showText` escapes in multi-line text (newlines, tabs and spaces are layout), and on one line (spaces only). */
const ESCAPED = { multiLine: new RegExp(`(?![\n\t ])${CLASS}`, "u"), oneLine: new RegExp(`(?! )${CLASS}`, "u") };
/** The same with a backslash, all at once: what an escaped text rewrites. */
const REWRITTEN = { multiLine: new RegExp(`\\\\|(?![\n\t ])${CLASS}`, "gu"), oneLine: new RegExp(`\\\\|(?! )${CLASS}`, "gu") };

/** Whether a code point is shown as an escape; a newline and a tab only when the text is shown on one line. */
const isHidden = (ch: string, oneLine: boolean): boolean => (oneLine ? ESCAPED.oneLine : ESCAPED.multiLine).test(ch);

/** Whether an escaped code point counts as hidden for the mark: whitespace and marker brackets are seen. */
const counts = (ch: string) => ch !== "\t" && ch !== "\n" && !MARKER_BRACKETS.test(ch);

/**
 * The text safe to show. `oneLine`: newlines and tabs are escaped too (titles, one-line
 * summaries); otherwise they stay line breaks and tabs, which a screen shows faithfully.
 */
export function showText(text: string, opts: { oneLine?: boolean } = {}): ShownText {
  const mode = opts.oneLine === true ? "oneLine" : "multiLine";
  if (!ESCAPED[mode].test(text)) return { text, escaped: false, hidden: 0, kinds: [] };
  let hidden = 0;
  const kinds = new Set<string>();
  const out = text.replace(REWRITTEN[mode], (ch) => {
    if (ch === "\\") return "\\\\";
    const escaped = escapeCodePoint(ch);
    if (counts(ch)) {
      hidden++;
      kinds.add(escaped);
    }
    return escaped;
  });
  return { text: out, escaped: true, hidden, kinds: [...kinds] };
}

/** Shorthand: the text safe to print on one line. */
export const safeLine = (text: string): string => showText(text, { oneLine: true }).text;
/** Shorthand: the text safe to print, newlines kept as line breaks. */
export const safeText = (text: string): string => showText(text).text;

/** The original text of an escaped one (`escaped` true): the inverse of `showText`. */
export function unescapeShown(shown: string): string {
  return shown.replace(/\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|.)/gsu, (whole, esc: string) => {
    if (esc.startsWith("x") && esc.length === 3) return String.fromCharCode(parseInt(esc.slice(1), 16));
    if (esc.startsWith("u{")) return String.fromCodePoint(parseInt(esc.slice(2, -1), 16));
    if (esc.startsWith("u") && esc.length === 5) return String.fromCharCode(parseInt(esc.slice(1), 16));
    const named = UNNAMED[esc];
    if (named === undefined) throw new UnescapeError(`unknown escape ${whole}`);
    return named;
  });
}

/** The original of a shown text. */
export const originalOf = (shown: Pick<ShownText, "text" | "escaped">): string => (shown.escaped ? unescapeShown(shown.text) : shown.text);

/**
 * JSON of a value with every hidden code point written as a JSON `\uXXXX` escape: valid JSON that
 * parses back to the value, and safe to print. `hidden` counts the hidden code points in its strings.
 */
export function showJson(value: unknown, indent?: number): { text: string; hidden: number; kinds: string[] } {
  const json = JSON.stringify(value, null, indent) ?? "undefined";
  let hidden = 0;
  const kinds = new Set<string>();
  const count = (s: string) => {
    for (const ch of s)
      if (isHidden(ch, false) && counts(ch)) {
        hidden++;
        kinds.add(escapeCodePoint(ch));
      }
  };
  const walk = (v: unknown): void => {
    if (typeof v === "string") count(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        count(k);
        walk(x);
      }
  };
  walk(value);
  const text = json.replace(/[^\n]/gu, (ch) => (isHidden(ch, false) ? jsonEscape(ch) : ch));
  return { text, hidden, kinds: [...kinds] };
}

const jsonEscape = (ch: string): string => {
  let out = "";
  for (let i = 0; i < ch.length; i++) out += `\\u${hex(ch.charCodeAt(i), 4)}`;
  return out;
};

/** What is hidden besides layout, markers' brackets aside: a text without any is safe to print as it is. */
const UNSHOWABLE = new RegExp(`(?![\n\t ⟦⟧])${CLASS}`, "u");

/** Whether a text holds no hidden code point (newlines, tabs and the markers' brackets aside): safe to print as it is. */
export const isShowable = (text: string): boolean => !UNSHOWABLE.test(text);
