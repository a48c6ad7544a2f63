/**
 * Programs that write the files a patch names: the gate sees the patch's name, not the files in
 * it, so a patch may create `.git/config` or `.vscode/tasks.json` where no rule was asked. `patch`
 * and `git apply` are the same act and ask alike; a dry run writes nothing.
 */
const DRY_RUN: Readonly<Record<string, RegExp>> = {
  patch: /^--dry-run$/,
  // `git apply` only reports with these, unless `--apply` is also given.
  "git apply": /^(--check|--stat|--numstat|--summary)$/,
};

/** Why the command (by its classified name, `git apply`) writes files the gate cannot see by name, or null. */
export function writesUnseen(name: string, words: readonly string[]): string | null {
  const dry = DRY_RUN[name];
  if (!dry || (words.some((w) => dry.test(w)) && !words.includes("--apply"))) return null;
  return `${name} writes the files its patch names, which the gate cannot see`;
}
