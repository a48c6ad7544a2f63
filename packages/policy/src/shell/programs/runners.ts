/** Shells: given a script, a file or their input, they run any command. */
export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "rbash"]);

/** Interpreters: given code or a file, they run any program. */
export const INTERPRETERS: ReadonlySet<string> = new Set(["python", "python2", "python3", "node", "perl", "ruby", "php", "lua", "deno", "bun"]);

/** A program that runs code it is handed: a shell, an interpreter (`python3.12` too), or `source`, `.` and `eval`. */
export function runsCode(program: string): boolean {
  return SHELLS.has(program) || INTERPRETERS.has(program) || /^python[0-9.]+$/.test(program) || program === "source" || program === "." || program === "eval";
}
