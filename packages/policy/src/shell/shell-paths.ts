import { namesOtherHome, physicalPath } from "../decide.js";
import { absolutePath, expandHome } from "../paths.js";
import type { ShellWord } from "./words.js";

/**
 * The directories a command may run in, as the line moves through `cd` and `pushd`. A `cd` in a
 * subshell or a branch may or may not have happened, so every directory seen stays a candidate;
 * a `cd` to a place only known at run time makes later relative paths unknown.
 */
export class ShellDirectories {
  readonly candidates: string[];
  unknown: string | null = null;
  /** The candidates as a set, made at the first `cd`. */
  private known: Set<string> | null = null;
  /**
   * Per candidate, the directories a `cd` has already gone to from it: going there again adds
   * nothing, so a script that repeats `cd build` costs one step per new candidate, not all of them.
   */
  private followed: Map<string, Set<string>> | null = null;
  /** resolve's answers until the next directory is added: a line names the same files again and again. */
  private resolved: Map<string, readonly string[]> | null = null;

  constructor(
    cwd: string,
    private readonly home: string,
    private readonly resolveRealPath?: (absolute: string) => string,
  ) {
    this.candidates = [cwd];
  }

  /** Follows `cd DIR`, `pushd DIR`, `popd`, `cd -`. */
  change(program: string, operands: readonly ShellWord[]): void {
    if (program !== "cd" && program !== "pushd" && program !== "popd") return;
    const target = operands[0];
    if (program === "popd" || target?.text === "-") {
      this.unknown ??= `${program} returns to a directory only known when the shell runs`;
      return;
    }
    const dir = target ? knownPath(target) : this.home;
    if (dir === null || dir.includes("$PWD")) {
      this.unknown ??= `${program} ${target?.raw ?? ""} goes to a directory only known when the shell runs`;
      return;
    }
    const known = (this.known ??= new Set(this.candidates));
    const followed = (this.followed ??= new Map());
    for (const base of [...this.candidates]) {
      let from = followed.get(base);
      if (!from) followed.set(base, (from = new Set()));
      if (from.has(dir)) continue;
      from.add(dir);
      for (const next of [absolutePath(dir, base, this.home), this.physical(dir, base)]) {
        if (next && !known.has(next) && this.candidates.length < 16) {
          this.candidates.push(next);
          known.add(next);
          this.resolved?.clear();
        }
      }
    }
  }

  /** `cd -P` and the kernel follow links before `..`; a place that cannot be resolved is unknown. */
  private physical(dir: string, base: string): string | null {
    if (!this.resolveRealPath) return null;
    try {
      return physicalPath(expandHome(dir, this.home), base, this.resolveRealPath);
    } catch {
      this.unknown ??= `cd ${dir} goes to a directory that cannot be resolved`;
      return null;
    }
  }

  /** Whether a path names a different file from each candidate directory (it is relative), or the same from all. */
  eachDirectory(file: string): boolean {
    return !(file.startsWith("/") || file.startsWith("~") || file.startsWith("$HOME"));
  }

  /** The absolute path a word names from one candidate directory. */
  resolveIn(file: string, dir: string): string {
    if (!this.eachDirectory(file)) return absolutePath(file.replace(/^\$PWD(?=\/|$)/, this.candidates[0]!), this.candidates[0]!, this.home);
    return absolutePath(file.startsWith("$PWD") ? dir + file.slice(4) : file, dir, this.home);
  }

  /** Every absolute path a word may name, one per candidate directory. */
  resolve(file: string): readonly string[] {
    this.resolved ??= new Map();
    let paths = this.resolved.get(file);
    if (!paths) {
      paths = this.eachDirectory(file) ? this.candidates.map((dir) => this.resolveIn(file, dir)) : [this.resolveIn(file, this.candidates[0]!)];
      this.resolved.set(file, paths);
    }
    return paths;
  }
}

const KNOWN_VARIABLE = /^(?:"?\$(HOME|PWD)"?|"?\$\{(HOME|PWD)\}"?)((?:\/[^$`*?[{}"'\\]*)?)"?$/;

/** The path a word names when it can be known before the shell runs (`$HOME/x`, `$PWD/x` too). */
export function knownPath(word: ShellWord): string | null {
  // `~user/x` is another user's home, looked up when the shell runs.
  if (!word.dynamic && !word.glob) return namesOtherHome(word.text) ? null : word.text;
  const m = KNOWN_VARIABLE.exec(word.raw);
  if (!m) return null;
  return `$${m[1] ?? m[2]}${m[3] ?? ""}`;
}
