import path from "node:path";

/** A file path as the rules see it (docs/design.md, "What a pattern is matched against"). */
export interface PathSubject {
  /** Relative to the work directory when inside it, else the absolute path. */
  primary: string;
  absolute: string;
  basename: string;
}

export function expandHome(value: string, home: string): string {
  if (value === "~" || value === "$HOME") return home;
  if (value.startsWith("~/")) return home + value.slice(1);
  if (value.startsWith("$HOME/")) return home + value.slice(5);
  return value;
}

/** Why a path can never be allowed, or null when it is a usable path. */
export function unusablePath(raw: string): string | null {
  if (raw.trim() === "") return "no path was given (missing, empty or not a string)";
  if (raw.includes("\0")) return "the path contains a NUL byte";
  return null;
}

// A relative path with no ".", "..", "//" or trailing slash needs no normalising.
const NEEDS_RESOLVE = /^[/~$]|(^|\/)\.\.?(\/|$)|\/\/|\/$/;
const roots = new Map<string, string>();

/** A directory, normalised; remembered, because a process sees few work directories. */
export function normalRoot(cwd: string): string {
  let root = roots.get(cwd);
  if (root === undefined) {
    if (roots.size >= 256) roots.clear();
    root = path.posix.resolve(cwd);
    roots.set(cwd, root);
  }
  return root;
}

export function absolutePath(raw: string, cwd: string, home: string): string {
  const root = normalRoot(cwd);
  if (!NEEDS_RESOLVE.test(raw)) return root === "/" ? `/${raw}` : `${root}/${raw}`;
  return path.posix.resolve(root, expandHome(raw, home));
}

export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith("/") ? parent : parent + "/";
  return child.startsWith(base);
}

export function subjectOfAbsolute(absolute: string, cwd: string): PathSubject {
  const root = normalRoot(cwd);
  let primary = absolute;
  if (absolute === root) primary = ".";
  else if (isInside(absolute, root)) primary = absolute.slice(root === "/" ? 1 : root.length + 1);
  const slash = absolute.lastIndexOf("/");
  return { primary, absolute, basename: absolute.slice(slash + 1) || absolute };
}
