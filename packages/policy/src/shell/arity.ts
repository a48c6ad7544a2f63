/** How many words form a command's prefix, from which "always" patterns are made (docs/design.md, "Shell commands"). */
const ARITY: ReadonlyMap<string, number> = new Map([
  ...["git", "npm", "bun", "docker", "cargo", "kubectl", "pip", "pip3", "pnpm", "yarn", "terraform", "systemctl", "bunx"].map((c) => [c, 2] as const),
  ...["npm run", "bun run", "docker compose", "git remote", "git stash", "aws", "gcloud", "gh"].map((c) => [c, 3] as const),
]);

/** Options of arity commands that take the next word as their value (`git -C dir push`). */
const VALUED_GLOBAL_OPTIONS: ReadonlySet<string> = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "-H",
  "--host",
  "--context",
  "--config",
  "-l",
  "--log-level",
  "-n",
  "--cluster",
  "--user",
  "-s",
  "--server",
  "--kubeconfig",
  "--token",
  "--prefix",
  "-w",
  "--workspace",
  "--dir",
  "--filter",
  "-F",
  "--cwd",
  "--manifest-path",
  "-Z",
  "--profile",
  "--region",
  "--project",
  "--account",
  "-R",
  "--repo",
]);

/** First words of the two-word entries above: only they need the two words joined to be looked up. */
const TWO_WORD_HEADS: ReadonlySet<string> = new Set([...ARITY.keys()].filter((k) => k.includes(" ")).map((k) => k.slice(0, k.indexOf(" "))));

export function arityOf(words: readonly string[]): number {
  const two = words.length > 1 && TWO_WORD_HEADS.has(words[0]!) ? ARITY.get(`${words[0]} ${words[1]}`) : undefined;
  return two ?? ARITY.get(words[0] ?? "") ?? 1;
}

export function hasArity(program: string): boolean {
  return (ARITY.get(program) ?? 1) > 1;
}

const NO_READINGS: readonly string[][] = Object.freeze([]);

/**
 * The command with options before its subcommand removed, so `git -C dir push` is seen as
 * `git push`. Two readings: options alone, and options with the value after them; unknown
 * options may or may not take a value, and a deny rule must see through both.
 */
export function withoutLeadingOptions(words: readonly string[]): readonly string[][] {
  if (!words[1]?.startsWith("-") || !hasArity(words[0] ?? "")) return NO_READINGS;
  const read = (takesValue: (w: string) => boolean): string[] => {
    let i = 1;
    while (i < words.length && words[i]!.startsWith("-")) i += takesValue(words[i]!) && !words[i]!.includes("=") ? 2 : 1;
    return [words[0]!, ...words.slice(i)];
  };
  const known = read((w) => VALUED_GLOBAL_OPTIONS.has(w));
  const all = read(() => true);
  const bare = read(() => false);
  return [known, all, bare].filter((v, i, list) => v.length > 1 && list.findIndex((o) => o.join(" ") === v.join(" ")) === i);
}

/** The arity prefix: the first words up to the subcommand, skipping options written before it. */
export function prefixLength(words: readonly string[]): number {
  const stripped = withoutLeadingOptions(words)[0];
  if (!stripped) return Math.min(arityOf(words), words.length);
  const arity = Math.min(arityOf(stripped), stripped.length);
  const skipped = words.length - stripped.length;
  return Math.min(words.length, arity + skipped);
}
