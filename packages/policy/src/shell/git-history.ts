/**
 * Git subcommands that print files as git holds them (its objects and index), where the sandbox's
 * masks of the working files do not reach: `git log -p`, `git show`, `git diff`, ... A pathspec
 * after `--` does not exempt one: a folder's pathspec holds what is in it.
 */
const GLOBAL_WITH_VALUE: ReadonlySet<string> = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"]);

/** These print contents only with a patch (`log -L` prints the line's history as one). */
const PATCH =
  /^(-p|-u|--patch|--patch-with-stat|--patch-with-raw|-U\d*|--unified(=.*)?|-c|--cc|--word-diff(=.*)?|--color-words(=.*)?|-m|--diff-merges=.*|-L.*)$/;
const WITH_PATCH: ReadonlySet<string> = new Set(["log", "whatchanged", "reflog", "diff-files", "request-pull"]);
/** show and range-diff print a patch unless one of these replaces it. */
const NO_PATCH = /^(-s|--no-patch|--stat(=.*)?|--shortstat|--numstat|--name-only|--name-status|--summary|--raw|--dirstat(=.*)?)$/;
/** These print files whatever their options. */
const ALWAYS: ReadonlySet<string> = new Set([
  "diff",
  "diff-index",
  "diff-tree",
  "format-patch",
  "archive",
  "cat-file",
  "blame",
  "annotate",
  "bundle",
  "fast-export",
  "merge-tree",
  // Writes a blob to a file of its own, `.merge_file_XXXXXX`, in the work directory.
  "unpack-file",
]);

/** The subcommand's name when `git WORDS` may print files from git's objects or index, else null. */
export function printsFromHistory(words: readonly string[]): string | null {
  let i = 1;
  while (i < words.length && words[i]!.startsWith("-")) i += GLOBAL_WITH_VALUE.has(words[i]!) ? 2 : 1;
  const sub = words[i];
  if (sub === undefined) return null;
  const rest = words.slice(i + 1);
  if (ALWAYS.has(sub)) return sub;
  if (WITH_PATCH.has(sub)) return rest.some((w) => PATCH.test(w)) ? sub : null;
  if (sub === "show" || sub === "range-diff") return rest.some((w) => NO_PATCH.test(w)) ? null : sub;
  if (sub === "stash") return rest[0] === "show" && rest.some((w) => PATCH.test(w)) ? "stash show" : null;
  if (sub === "grep") return rest.some((w) => w === "--cached" || w === "--untracked") || rest.filter((w) => !w.startsWith("-")).length > 1 ? sub : null;
  return null;
}
