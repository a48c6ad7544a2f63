import fs from "node:fs";
import path from "node:path";
import { isInside } from "@gatehouse/policy";
import { output, type GitRunner } from "../own-git.js";
import { at, openFolder, openInside, removeEntry } from "./contained-removal.js";

/**
 * Settings that cannot make git run a program, so all that a git directory a sandboxed process
 * made keeps: what a plain `git init`, `git clone`, `git remote add`, `git submodule add` and
 * `git commit` need. Everything else goes (hooks paths, fsmonitor, filters, diff and merge
 * drivers, signing programs, ssh commands, includes, partial-clone extensions, aliases).
 */
const KEPT: readonly RegExp[] = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|worktree)$/,
  /^extensions\.objectformat$/,
  /^remote\.[^\n]+\.(url|pushurl|fetch)$/,
  /^branch\.[^\n]+\.(remote|merge)$/,
  /^user\.(name|email)$/,
  /^init\.defaultbranch$/,
];

/** What was taken from one git directory. */
export interface Disarmed {
  gitDir: string;
  /** Settings removed, by key; all of them, unread, when git could not read the file, which was emptied. */
  settings: string[];
  /** Hooks and files removed, by their names in the git directory. */
  removed: string[];
  /** Why nothing was done there: the folder is no longer reached from the work directory without a symlink. */
  refused?: string;
}

/**
 * The git directories a command made: those in `now` not in `before`, and the common directory a
 * made one names (`commondir`) when it lies in the work directory and was not a git directory before.
 */
export function madeGitDirs(now: readonly string[], before: readonly string[], workDir: string): string[] {
  const old = new Set(before);
  const made = new Set(now.filter((d) => !old.has(d)));
  for (const dir of [...made]) {
    const common = commonDir(dir);
    if (common && !old.has(common) && isInside(common, workDir)) made.add(common);
  }
  return [...made];
}

function commonDir(gitDir: string): string | null {
  try {
    return path.resolve(gitDir, fs.readFileSync(path.join(gitDir, "commondir"), "utf8").trim());
  } catch {
    return null;
  }
}

/**
 * Past this many configs that only git can read (each a confined git start), a command's further
 * ones are emptied unread: a command that makes thousands of git directories does not hold its
 * result for minutes.
 */
const GIT_READS = 16;

/** Each of `gitDirs` disarmed; `git` reads the configs that are not in git's plain form. */
export async function disarmGitDirs(gitDirs: readonly string[], git: GitRunner, workDir: string): Promise<Disarmed[]> {
  let reads = 0;
  const limited: GitRunner = (args) => (++reads <= GIT_READS ? git(args) : Promise.resolve({ status: null, stdout: "", stderr: "too many to read" }));
  const disarmed: Disarmed[] = [];
  for (const dir of gitDirs) {
    // Opened from the work directory with no symlink followed: a folder swapped for a link since the listing leads nowhere else.
    let fd: number;
    try {
      fd = openInside(workDir, dir);
    } catch (err) {
      disarmed.push({ gitDir: dir, settings: [], removed: [], refused: (err as Error).message });
      continue;
    }
    try {
      disarmed.push(await disarmGitDir(dir, fd, limited));
    } finally {
      fs.closeSync(fd);
    }
  }
  return disarmed;
}

/** Keeps only the settings above and git's sample hooks in `gitDir`, open as `fd`. */
async function disarmGitDir(gitDir: string, fd: number, git: GitRunner): Promise<Disarmed> {
  const removed = removeHooks(fd, gitDir);
  if (remove(fd, "config.worktree")) removed.push("config.worktree");
  return { gitDir, settings: await disarmConfig(fd, path.join(gitDir, "config"), git), removed };
}

async function disarmConfig(fd: number, shown: string, git: GitRunner): Promise<string[]> {
  const file = at(fd, "config");
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return [];
  const entries = stat.isFile() ? (plainConfig(fs.readFileSync(file, "utf8")) ?? (await listedConfig(shown, git))) : null;
  if (entries === null) {
    replace(fd, "config", "");
    return ["(all its settings, unread)"];
  }
  const kept = (key: string) => KEPT.some((k) => k.test(key.toLowerCase()));
  const dropped = entries.filter(([key]) => !kept(key)).map(([key]) => key);
  if (dropped.length > 0) replace(fd, "config", configText(entries.filter(([key]) => kept(key))));
  // A hard link elsewhere in the work tree would let a later write to a plain name change git's settings.
  else if (stat.nlink > 1) replace(fd, "config", fs.readFileSync(file, "utf8"));
  return [...new Set(dropped)];
}

type Entry = [key: string, value: string | null];

/** The settings as git reads them (`git config --list -z`, includes not followed); null when it cannot. */
async function listedConfig(file: string, git: GitRunner): Promise<Entry[] | null> {
  const listed = output(await git(["config", "--file", file, "--no-includes", "--list", "-z"]));
  if (listed === null) return null;
  return listed
    .split("\0")
    .filter((e) => e !== "")
    .map((e): Entry => {
      const nl = e.indexOf("\n");
      return nl < 0 ? [e, null] : [e.slice(0, nl), e.slice(nl + 1)];
    });
}

const HEADER = /^\[([A-Za-z0-9-]+)(?: "([^"\\]*)")?\]$/;
const LINE = /^([A-Za-z][A-Za-z0-9-]*)(?:\s*=\s*([^"\\;#]*))?$/;

/**
 * The settings of a config in the plain form git itself writes (`[section "sub"]`, `key = value`
 * without quotes, escapes or comments after a value), read without starting a program; null for
 * anything else, which git reads instead.
 */
function plainConfig(text: string): Entry[] | null {
  const entries: Entry[] = [];
  let section: string | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = HEADER.exec(line);
    if (header) {
      section = header[2] === undefined ? header[1]!.toLowerCase() : `${header[1]!.toLowerCase()}.${header[2]}`;
      continue;
    }
    const setting = LINE.exec(line);
    if (!setting || section === null) return null;
    entries.push([`${section}.${setting[1]!.toLowerCase()}`, setting[2] === undefined ? null : setting[2].trim()]);
  }
  return entries;
}

/** Every hook but git's own `*.sample` files (unless hard-linked elsewhere); the folder itself when it is not a plain folder. */
function removeHooks(fd: number, gitDir: string): string[] {
  const stat = fs.lstatSync(at(fd, "hooks"), { throwIfNoEntry: false });
  if (!stat) return [];
  if (!stat.isDirectory()) return remove(fd, "hooks") ? ["hooks"] : [];
  const removed: string[] = [];
  const hooks = openFolder(fd, "hooks", path.join(gitDir, "hooks"));
  try {
    for (const e of fs.readdirSync(`/proc/self/fd/${hooks}`, { withFileTypes: true })) {
      if (e.isFile() && e.name.endsWith(".sample") && fs.lstatSync(at(hooks, e.name)).nlink === 1) continue;
      if (remove(hooks, e.name)) removed.push(`hooks/${e.name}`);
    }
  } finally {
    fs.closeSync(hooks);
  }
  return removed;
}

/** Removes `name` in the folder open as `fd`, following no symlink; whether it was there. */
function remove(fd: number, name: string): boolean {
  const stat = fs.lstatSync(at(fd, name), { throwIfNoEntry: false });
  if (!stat) return false;
  removeEntry(fd, name, stat.isDirectory());
  return true;
}

/** The file replaced by a new one (a symlink there is replaced, not followed). */
function replace(fd: number, name: string, text: string): void {
  remove(fd, name);
  fs.writeFileSync(at(fd, name), text, { mode: 0o644, flag: "wx" });
}

/** Entries as git writes them: `[section "sub"]`, then each key with its value quoted. */
function configText(entries: readonly Entry[]): string {
  let text = "";
  let header = "";
  for (const [key, value] of entries) {
    const first = key.indexOf(".");
    const last = key.lastIndexOf(".");
    const section = key.slice(0, first);
    const sub = first < last ? ` "${escape(key.slice(first + 1, last))}"` : "";
    const next = `[${section}${sub}]\n`;
    if (next !== header) text += header = next;
    text += value === null ? `\t${key.slice(last + 1)}\n` : `\t${key.slice(last + 1)} = "${escape(value)}"\n`;
  }
  return text;
}

function escape(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t");
}
