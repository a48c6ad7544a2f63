/**
 * Commands and edits an attacker would use to make a person approve something other than what
 * runs, each with what a faithful screen shows of it and the mark beside it. Each class of
 * hidden or out-of-sight text once, then combinations.
 */
export interface HostileCase {
  name: string;
  /** The tool call the model makes. */
  call: { tool: string; args: Record<string, unknown> };
  /** Text the screen must show (one line of it, escapes visible). */
  shown: string;
  /** The mark the screen must show beside it. */
  mark: string;
}

const bs = (n: number) => "\b".repeat(n);
const shownBs = (n: number) => "\\b".repeat(n);
const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

export const HOSTILE_CASES: HostileCase[] = [
  {
    name: "backspaces painting a harmless command over the one that runs",
    call: shell(`mv build .trash${bs(15)}mv notes.txt notes.md`),
    shown: `mv build .trash${shownBs(15)}mv notes.txt notes.md`,
    mark: "contains 15 invisible characters, shown as escapes (\\b)",
  },
  {
    name: "a carriage return and escape sequences that erase the line",
    call: shell("mv build .trash\r\x1b[2K\x1b[1Gecho hello"),
    shown: "mv build .trash\\r\\x1b[2K\\x1b[1Gecho hello",
    mark: "contains 3 invisible characters, shown as escapes (\\r, \\x1b)",
  },
  {
    name: "bidi controls that turn the command around",
    call: shell("echo ok \u202e; hsart. dliub vm #\u202c"),
    shown: "echo ok \\u202E; hsart. dliub vm #\\u202C",
    mark: "contains 2 invisible characters, shown as escapes (\\u202E, \\u202C)",
  },
  {
    name: "bidi isolates",
    call: shell("echo ok \u2067# \u2069; mv build .trash"),
    shown: "echo ok \\u2067# \\u2069; mv build .trash",
    mark: "contains 2 invisible characters, shown as escapes (\\u2067, \\u2069)",
  },
  {
    name: "zero-width characters",
    call: shell("r\u200bm -rf b\u200duild\ufeff"),
    shown: "r\\u200Bm -rf b\\u200Duild\\uFEFF",
    mark: "contains 3 invisible characters, shown as escapes (\\u200B, \\u200D, \\uFEFF)",
  },
  {
    name: "NUL, DEL, form feed, vertical tab and C1 controls",
    call: shell("echo a\x00b\x7fc\fd\ve\x9bf\x85g"),
    shown: "echo a\\x00b\\x7fc\\fd\\ve\\x9bf\\x85g",
    mark: "contains 6 invisible characters",
  },
  {
    name: "line and paragraph separators",
    call: shell("echo a\u2028mv build .trash\u2029"),
    shown: "echo a\\u2028mv build .trash\\u2029",
    mark: "contains 2 invisible characters, shown as escapes (\\u2028, \\u2029)",
  },
  {
    name: "spaces that are not spaces to the shell, and tag characters",
    call: shell("rm\u00a0-rf\u2003build; echo hi\u{e0072}\u{e006d}"),
    shown: "rm\\xa0-rf\\u2003build; echo hi\\u{E0072}\\u{E006D}",
    mark: "contains 4 invisible characters",
  },
  {
    name: "a look-alike letter in the program's name",
    call: shell("c\u0430t notes.txt"),
    shown: "c\u0430t notes.txt",
    mark: "look-alike letters: c\\u0430t (Latin and Cyrillic)",
  },
  {
    name: "thousands of spaces pushing the rest out of sight",
    call: shell(`echo ok${" ".repeat(3000)}; mv build .trash`),
    shown: "echo ok ⟦3,000 spaces⟧ ; mv build .trash",
    mark: "left out of sight: 3,000 spaces on line 1",
  },
  {
    name: "hundreds of blank lines",
    call: shell(`echo hi${"\n".repeat(300)}mv build .trash`),
    shown: "⟦299 blank lines⟧",
    mark: "left out of sight: 299 blank lines at lines 2-300",
  },
  {
    name: "a very long line",
    call: shell(`echo ${"x".repeat(5000)}; mv build .trash`),
    shown: "more characters on this line⟧",
    mark: "left out of sight: 3,022 characters after column 2,000 on line 1",
  },
  {
    name: "a literal backslash beside a hidden character, and a forged marker",
    call: shell("printf 'a\\n' ⟦no more⟧\b"),
    shown: "printf 'a\\\\n' \\u27E6no more\\u27E7\\b",
    mark: "contains 1 invisible character, shown as escapes (\\b)",
  },
  {
    name: "combined: a look-alike, bidi, backspaces and a carriage return",
    call: shell(`c\u0430t x \u202e${bs(3)}\r`),
    shown: `c\u0430t x \\u202E${shownBs(3)}\\r`,
    mark: "contains 5 invisible characters, shown as escapes (\\u202E, \\b, \\r)",
  },
  {
    name: "an edit whose diff hides a line behind backspaces",
    call: {
      tool: "edit_file",
      args: { path: "config.ini", old_string: "[core]\n", new_string: `[core]\nfsmonitor = "mv build .trash"${bs(30)}editor = vim\n` },
    },
    shown: `+fsmonitor = "mv build .trash"${shownBs(30)}editor = vim`,
    mark: "contains 30 invisible characters, shown as escapes (\\b)",
  },
];

/** The file the edit case edits, as it is before. */
export const HOSTILE_FILES = { "config.ini": "[core]\n" };
