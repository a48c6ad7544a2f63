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
/** Options that print names, counts or object ids in place of the patch. */
const NO_PATCH = /^(-s|--no-patch|--stat(=.*)?|--shortstat|--numstat|--name-only|--name-status|--summary|--raw|--dirstat(=.*)?|--compact-summary)$/;
/**
 * Options that change only how commits, names and counts are laid out. Any other option beside a
 * no-patch one may bring a patch back (`--stat -p`, `--binary`, `--check`), so it is not exempt.
 */
const LAYOUT =
  /^(--cached|--staged|--oneline|--format=.*|--pretty(=.*)?|--abbrev-commit|--no-abbrev-commit|--abbrev(=\d+)?|--no-abbrev|--date=.*|--decorate(=.*)?|--no-decorate|--color(=(always|never|auto))?|--no-color|-q|--quiet|--no-renames|-M(\d+%?)?|--find-renames(=\d+%?)?|-z|--full-index|--stat-width=\d+|--stat-name-width=\d+|--stat-count=\d+|--no-ext-diff|--no-textconv)$/;
/**
 * HEAD's commit or one of its ancestors. `git show` prints a blob or a tree whatever its options, and
 * any other name may be a tag that names one; HEAD names a branch, which git keeps to commits, once
 * `symbolic-ref` is held to branches (below).
 */
const HEAD_COMMIT = /^(HEAD|@)([~^]\d*)*$/;
/** diff and its plumbing print a patch unless the options replace it with names or counts. */
const DIFFS: ReadonlySet<string> = new Set(["diff", "diff-index", "diff-tree"]);
/** These print files whatever their options. */
const ALWAYS: ReadonlySet<string> = new Set([
  "format-patch",
  "archive",
  "cat-file",
  "bundle",
  "fast-export",
  "merge-tree",
  // Writes a blob to a file of its own, `.merge_file_XXXXXX`, in the work directory.
  "unpack-file",
]);
/** blame's options that take the next word as their value. */
const BLAME_VALUED: ReadonlySet<string> = new Set(["-L", "-S", "--contents", "--date", "--ignore-rev", "--ignore-revs-file"]);
/** blame's options that change only what is shown beside each line, or where a line is traced to. */
const BLAME_OPTION =
  /^(-[bltfnsewcp]+|--root|--show-stats|--show-name|--show-number|--show-email|--porcelain|--line-porcelain|--incremental|--score-debug|--progress|--no-progress|--reverse|--first-parent|-[MC]\d*|--abbrev=\d+|-L.+|--(contents|date|ignore-rev|ignore-revs-file)=.+)$/;
/** git grep's options that take the next word as their value. */
const GREP_VALUED: ReadonlySet<string> = new Set([
  "-e",
  "-f",
  "-A",
  "-B",
  "-C",
  "-m",
  "--max-count",
  "--max-depth",
  "--threads",
  "--context",
  "--after-context",
  "--before-context",
]);

/**
 * Whether `git grep` is given a revision: a word before `--` that is neither an option, an
 * option's value nor the pattern (the first such word, unless `-e` or `-f` gives it). Words
 * after `--` are paths of the working tree.
 */
function grepsRevisions(rest: readonly string[]): boolean {
  const end = rest.indexOf("--");
  const before = end < 0 ? rest : rest.slice(0, end);
  const words: string[] = [];
  for (let i = 0; i < before.length; i++) {
    const w = before[i]!;
    if (GREP_VALUED.has(w)) i++;
    else if (!w.startsWith("-")) words.push(w);
  }
  const patternGiven = before.some((w) => /^(-e|-f|--regexp|--file)/.test(w));
  return words.length > (patternGiven ? 0 : 1);
}

/** `git notes add -C BLOB` makes an object the note that `git log` and `git show` print under every commit. */
const NOTE_FROM_OBJECT = /^(-[cC].*|--reuse-message(=.*)?|--reedit-message(=.*)?)$/;

/**
 * What `git WORDS` does with git's objects when it may print files from them ("git show prints
 * files from git's history and index"), else null.
 */
export function printsFromHistory(words: readonly string[]): string | null {
  let i = 1;
  while (i < words.length && words[i]!.startsWith("-")) i += GLOBAL_WITH_VALUE.has(words[i]!) ? 2 : 1;
  const sub = words[i];
  if (sub === undefined) return null;
  const prints = `git ${sub} prints files from git's history and index`;
  const rest = words.slice(i + 1);
  if (ALWAYS.has(sub)) return prints;
  if (sub === "blame" || sub === "annotate") return blamesOneFile(rest) ? null : prints;
  if (DIFFS.has(sub)) return namesOnly(rest, () => true) ? null : prints;
  if (WITH_PATCH.has(sub)) return rest.some((w) => PATCH.test(w)) ? prints : null;
  if (sub === "show") return namesOnly(rest, (w) => HEAD_COMMIT.test(w)) ? null : prints;
  if (sub === "range-diff") return namesOnly(rest, () => true) ? null : prints;
  if (sub === "stash") return rest[0] === "show" && rest.some((w) => PATCH.test(w)) ? `git stash show prints files from git's history and index` : null;
  if (sub === "grep") return rest.some((w) => w === "--cached" || w === "--untracked") || grepsRevisions(rest) ? prints : null;
  if (sub === "notes")
    return rest.some((w) => NOTE_FROM_OBJECT.test(w)) ? "git notes makes a note that git log prints of an object from git's history and index" : null;
  if (sub === "update-index")
    return rest.some((w) => w === "--cacheinfo" || w.startsWith("--cacheinfo="))
      ? "git update-index --cacheinfo gives a new name to an object of git's history and index"
      : null;
  if (sub === "fetch" || sub === "pull" || sub === "push")
    return rest.some(makesOtherRefs) ? `git ${sub} can make a ref that gives HEAD or a name an object of git's history and index` : null;
  if (sub === "symbolic-ref") return pointsAwayFromBranches(rest) ? "git symbolic-ref lets git show print what a ref names in git's history and index" : null;
  return null;
}

/**
 * Whether the options print names, counts or ids only: one that replaces the patch, and beside it
 * only layout; every word before `--` that is not an option must pass `operand`.
 */
function namesOnly(rest: readonly string[], operand: (word: string) => boolean): boolean {
  let replaced = false;
  for (const w of rest) {
    if (w === "--") break;
    if (NO_PATCH.test(w)) replaced = true;
    else if (w.startsWith("-") ? !LAYOUT.test(w) : !operand(w)) return false;
  }
  return replaced;
}

/**
 * A refspec (or `--refmap=`) whose destination is a glob or a ref outside branches, remote branches
 * and tags (`refs/replace/COMMIT` makes git show a blob for HEAD's commit), or `--mirror`. Git
 * keeps branches to commits, and a tag or a remote branch is judged where it is named.
 */
function makesOtherRefs(word: string): boolean {
  if (word === "--mirror") return true;
  const spec = word.startsWith("--refmap=") ? word.slice("--refmap=".length) : word.startsWith("-") ? "" : word;
  const colon = spec.lastIndexOf(":");
  if (colon < 0) return false;
  const dst = spec.slice(colon + 1);
  return dst.includes("*") || (dst.startsWith("refs/") && !/^refs\/(heads|remotes|tags)\//.test(dst));
}

/** `git symbolic-ref NAME TARGET` with a target outside `refs/heads/`, where a tag may name a blob. */
function pointsAwayFromBranches(rest: readonly string[]): boolean {
  const operands = rest.filter((w) => !w.startsWith("-"));
  if (operands.length < 2 || rest.some((w) => w === "-d" || w === "--delete")) return false;
  return !operands[operands.length - 1]!.startsWith("refs/heads/");
}

/**
 * `git blame [REV] [--] FILE` prints FILE as it was: lines of a file of that name, which the read
 * rules judge as an operand. Anything else it may be given (a third word, an unknown option) is
 * not told apart, so it is not exempt.
 */
function blamesOneFile(rest: readonly string[]): boolean {
  const operands: string[] = [];
  let paths = false;
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (paths || !w.startsWith("-")) operands.push(w);
    else if (w === "--") paths = true;
    else if (BLAME_VALUED.has(w)) i++;
    else if (!BLAME_OPTION.test(w)) return false;
  }
  const afterDashes = paths ? rest.length - rest.indexOf("--") - 1 : 0;
  return operands.length >= 1 && operands.length <= 2 && (!paths || afterDashes === 1) && operands.at(-1) !== "";
}
