import { isStricter } from "./action.js";
import type { Verdict } from "./decision.js";
import { absolutePath, expandHome, isInside, normalRoot, subjectOfAbsolute, unusablePath } from "./paths.js";
import { ruleNames, steeringFileOf, steeringReason, type HasGitHead, type Steering } from "./steering-files.js";
import { findLast, findLastDeny, type Layers, type Match, type Subject } from "./ruleset.js";

/** Everything a decision depends on besides the call itself. */
export interface DecideContext {
  layers: Layers;
  /** The worker's work directory. */
  cwd: string;
  home: string;
  /**
   * The system's own secrets and rules (the data directory, config files, keys, tokens): never read
   * or written by any tool or command, whatever the rules say (docs/design.md, "Floors").
   */
  protectedPaths?: readonly string[];
  /** Resolves symlinks (dangling ones too) where the files are on this machine. */
  resolveRealPath?: (absolute: string) => string;
  /** Whether a folder has a HEAD (a git directory in the making), where the files are on this machine. */
  hasGitHead?: HasGitHead;
  /**
   * A path git's history or index holds that the rules deny to read_file, or what else the command
   * may print that cannot be judged, or null; known where the repository is. `words`: the git
   * command's words, null for one only known when the shell runs.
   */
  deniedInHistory?: (words: readonly (string | null)[]) => string | null;
  /**
   * The file of the catalogue a write of a path changes through a symlink of the work tree
   * (`lefthook.yml -> lh.txt` for `lh.txt`), or null; known where the files are.
   */
  steeringLink?: (absolute: string) => string | null;
}

export const WRITE_TOOLS: ReadonlySet<string> = new Set(["write_file", "edit_file"]);

function fromMatch(match: Match, subject: string, reason: string): Verdict {
  return { action: match.rule.action, subject, rule: match.compiled.refIn(match.layer), reason: reason + match.compiled.describedIn(match.layer) };
}

/** Layers, agent veto, last match wins, default ask, deny floor (docs/design.md, "Rules and their order", "Layers" and "Floors"); an agent's `limit` rules only narrow. */
export function decideSubject(layers: Layers, tool: string, subject: Subject, label: string): Verdict {
  const own = layers.agent ? findLast(layers, tool, subject, "agent") : null;
  if (own?.rule.action === "deny") return fromMatch(own, label, "the agent's veto: ");
  const match = findLast(layers, tool, subject);
  const verdict = decideMatch(layers, tool, subject, label, match?.rule.origin === "limit" ? null : match);
  if (own?.rule.origin !== "limit" || !isStricter(own.rule.action, verdict.action)) return verdict;
  return fromMatch(own, label, "the agent's limit: ");
}

function decideMatch(layers: Layers, tool: string, subject: Subject, label: string, match: Match | null): Verdict {
  if (!match) return { action: "ask", subject: label, rule: null, reason: `no rule matches ${tool} "${label}"; the default is ask` };
  if (match.rule.action === "allow" && match.rule.origin === "approval") {
    const floor = findLastDeny(layers, tool, subject);
    if (floor) return fromMatch(floor, label, "deny floor (an approval-made allow never overrides a deny): ");
  }
  return fromMatch(match, label, "");
}

export function isProtected(absolute: string, ctx: DecideContext): string | undefined {
  return ctx.protectedPaths?.find((p) => isInside(absolute, p));
}

/** A directory that holds a protected path: moving, linking or removing it reaches the path. */
export function holdsProtected(absolute: string, ctx: DecideContext): string | undefined {
  return ctx.protectedPaths?.find((p) => absolute !== "/" && p !== absolute && isInside(p, absolute));
}

/** The worker's own process, or any process's environment and memory: never read or written. */
const PROCESS_FILES = /^\/proc\/(self|thread-self|\d+)(\/|$)/;
/** The same, as written before `..` and `//` are folded (`/proc/self/cwd/../../proc/self/x`). */
const PROCESS_WRITTEN = /(^|\/)proc\/+(\.\/+)*(self|thread-self|\d+)(\/|$)/;

/** A path that names a process's own files however it is spelled. */
export function namesProcessFiles(raw: string): boolean {
  return raw.includes("proc") && PROCESS_WRITTEN.test(raw);
}
function floor(tool: string, absolute: string, ctx: DecideContext): Verdict | null {
  if (absolute.startsWith("/proc/") && PROCESS_FILES.test(absolute))
    return {
      action: "deny",
      subject: absolute,
      rule: null,
      reason: `${absolute} is a process's own files (environment, memory, open files); no tool reads or writes them`,
    };
  const guard = isProtected(absolute, ctx);
  if (guard)
    return { action: "deny", subject: absolute, rule: null, reason: `${absolute} is inside the protected path ${guard}, which no tool reads or writes` };
  return null;
}

/** Writes outside the work directory ask unless a rule naming an absolute or ~ path allows them. */
function boundary(tool: string, absolute: string, ctx: DecideContext, v: Verdict): Verdict {
  if (!WRITE_TOOLS.has(tool) || v.action === "deny") return v;
  const steers = steeringOf(absolute, ctx);
  if (steers && !(v.action === "allow" && v.rule && ruleNames(v.rule.pattern, steers.steering)))
    return { ...v, action: "ask", rule: null, reason: steers.reason, steers: steers.steering };
  if (v.action !== "allow") return v;
  if (isInside(absolute, normalRoot(ctx.cwd)) || v.rule?.pattern.startsWith("/")) return v;
  return {
    ...v,
    action: "ask",
    rule: null,
    reason: `${absolute} is outside the work directory and no rule naming an absolute or ~ path allows it (${v.reason})`,
  };
}

/** The catalogue's entry a write of `absolute` changes, by its own name or through a steering file's symlink, and why. */
function steeringOf(absolute: string, ctx: DecideContext): { steering: Steering; reason: string } | null {
  const own = steeringFileOf(absolute, ctx.cwd, ctx.hasGitHead);
  if (own) return { steering: own, reason: steeringReason(absolute, own) };
  const via = ctx.steeringLink?.(absolute);
  const linked = via ? steeringFileOf(via, ctx.cwd, ctx.hasGitHead) : null;
  return via && linked ? { steering: linked, reason: `${via} is a symlink that leads to ${absolute}: ${steeringReason(via, linked)}` } : null;
}

function decidePath(tool: string, absolute: string, ctx: DecideContext): Verdict {
  const stop = floor(tool, absolute, ctx);
  if (stop) return stop;
  const subject = subjectOfAbsolute(absolute, ctx.cwd);
  return boundary(tool, absolute, ctx, decideSubject(ctx.layers, tool, { kind: "path", path: subject }, subject.primary));
}

/** `~user/...`: another user's home directory. */
export function namesOtherHome(raw: string): boolean {
  return raw.length > 1 && raw[0] === "~" && raw[1] !== "/";
}

/** A file tool's decision for one path, repeated on its real path where that can be resolved. */
export function decideFile(tool: string, raw: string, ctx: DecideContext): Verdict {
  const unusable = unusablePath(raw);
  if (unusable) return { action: "deny", subject: raw, rule: null, reason: `${unusable}; such a path is never allowed` };
  if (namesOtherHome(raw))
    return { action: "ask", subject: raw, rule: null, reason: `${raw} names another user's home directory, which is only known when the shell runs` };
  if (raw.startsWith("/") && namesProcessFiles(raw))
    return {
      action: "deny",
      subject: raw,
      rule: null,
      reason: `${raw} names a process's own files (environment, memory, open files); no tool reads or writes them`,
    };
  const verdict = decideAbsolute(tool, absolutePath(raw, ctx.cwd, ctx.home), ctx);
  return raw.includes("..") ? physically(tool, raw, ctx.cwd, ctx, verdict) : verdict;
}

/**
 * The path the kernel opens for `raw`: each component in turn, symlinks followed before `..` is
 * taken (in `link/../x` the `..` leaves where `link` points, not `link` itself).
 */
export function physicalPath(raw: string, base: string, resolve: (absolute: string) => string): string {
  let current = raw.startsWith("/") ? "/" : resolve(base);
  for (const part of raw.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") current = current === "/" ? "/" : current.slice(0, current.lastIndexOf("/")) || "/";
    else current = resolve(current === "/" ? `/${part}` : `${current}/${part}`);
  }
  return current;
}

/** `dir/../x` where dir is a symlink: the kernel follows the link before `..`; the stricter counts. */
export function physically(tool: string, raw: string, base: string, ctx: DecideContext, verdict: Verdict): Verdict {
  if (!ctx.resolveRealPath) return verdict;
  let real: string;
  try {
    real = physicalPath(expandHome(raw, ctx.home), base, ctx.resolveRealPath);
  } catch (err) {
    return unresolvable(raw, err, verdict);
  }
  const onReal = decidePath(tool, real, ctx);
  if (!weighsMore(onReal, verdict)) return verdict;
  return { ...onReal, subject: verdict.subject, reason: `${raw} leads to ${real}: ${onReal.reason}` };
}

/**
 * Whether the verdict on a real path counts over the one on the name: a stricter action, or the
 * same ask for a file that decides what a program runs (a steering file makes the write an
 * exec-tier act, which a mode that lets writes through does not let through).
 */
function weighsMore(onReal: Verdict, onName: Verdict): boolean {
  return isStricter(onReal.action, onName.action) || (onReal.action === onName.action && onReal.action !== "allow" && !!onReal.steers && !onName.steers);
}

function unresolvable(raw: string, err: unknown, verdict: Verdict): Verdict {
  const code = (err as NodeJS.ErrnoException)?.code ?? "an error";
  const ask: Verdict = { action: "ask", subject: verdict.subject, rule: null, reason: `${raw} cannot be resolved (${code}), so where it leads is not known` };
  return isStricter(verdict.action, "ask") ? verdict : ask;
}

/** As decideFile, for a path already made absolute and normalised. */
export function decideAbsolute(tool: string, absolute: string, ctx: DecideContext): Verdict {
  const verdict = decidePath(tool, absolute, ctx);
  if (!ctx.resolveRealPath) return verdict;
  let real: string;
  try {
    real = ctx.resolveRealPath(absolute);
  } catch (err) {
    return unresolvable(absolute, err, verdict);
  }
  if (real === absolute) return verdict;
  const onReal = decidePath(tool, real, ctx);
  if (!weighsMore(onReal, verdict)) return verdict;
  return { ...onReal, subject: verdict.subject, reason: `${verdict.subject} resolves to ${real}: ${onReal.reason}` };
}
