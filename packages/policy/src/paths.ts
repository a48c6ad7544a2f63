import path from "node:path";

/** A file path as the rules see it (DESIGN §2.2). */
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
  if (raw.trim() === "") return "the path is empty";
  if (raw.includes("\0")) return "the path contains a NUL byte";
  return null;
}

export function absolutePath(raw: string, cwd: string, home: string): string {
  return path.posix.resolve(cwd, expandHome(raw, home));
}

export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith("/") ? parent : parent + "/";
  return child.startsWith(base);
}

export function pathSubject(raw: string, cwd: string, home: string): PathSubject {
  return subjectOfAbsolute(absolutePath(raw, cwd, home), cwd);
}

export function subjectOfAbsolute(absolute: string, cwd: string): PathSubject {
  const root = path.posix.resolve(cwd);
  const primary = isInside(absolute, root) ? path.posix.relative(root, absolute) || "." : absolute;
  return { primary, absolute, basename: path.posix.basename(absolute) || absolute };
}
