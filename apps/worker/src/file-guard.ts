import fs from "node:fs";
import { resolveRealPath as resolveNow } from "@gatehouse/fs-guard";
import {
  absolutePath,
  decideAbsolute,
  decideFile,
  evaluate,
  FILE_TOOLS,
  FILE_WRITE_TOOLS,
  isInside,
  Ruleset,
  steeringFileOf,
  toolKeyMatches,
  type Decision,
  type EvaluationContext,
  type Rule,
  type Verdict,
} from "@gatehouse/policy";
import { evaluationContext, hasGitHead, perRun } from "@gatehouse/policy/node";
import type { Granted, Guard } from "@gatehouse/protocol";
import type { GitHistory } from "./git-history.js";
import type { GitRunner } from "./own-git.js";
import { hiddenFromCommands } from "./sandbox/masks.js";
import { ToolRefusedError } from "./errors.js";
import type { SteeringLinkTargets } from "./steering-links.js";

/** Real paths, resolved once per synchronous run: a call's decision and its check ask about the same path. */
const realPaths = perRun<string>();
const resolveRealPath = (absolute: string) => realPaths(absolute, () => resolveNow(absolute));

const asWritten = (p: string) => p;

/**
 * Whether the worker may act on a verdict: an allow always; an ask only when the server let the
 * call run on an ask (a person's approval, or the session's mode), never a deny. Accept-edits lets
 * no exec-tier act through: the worker may find a write steers a program where the server, deciding
 * on names, did not (a git directory known by what it holds, not by its name).
 */
function permits(verdict: { action: Verdict["action"]; steers?: unknown; tier?: string }, granted: Granted): boolean {
  if (verdict.action === "allow") return true;
  if (verdict.action !== "ask" || granted === "rules") return false;
  return granted !== "edits" || (!verdict.steers && verdict.tier !== "exec");
}

const ruleset = (rules: Guard["static"] | null): Ruleset | undefined => (rules ? new Ruleset(rules.map((r): Rule => ({ ...r }))) : undefined);

const forFileTools = (rules: Guard["static"] | null) =>
  (rules ?? []).filter((r) => [...FILE_TOOLS].some((t) => toolKeyMatches(r.tool, t))).map((r) => [r.tool, r.pattern, r.action, r.origin]);

/**
 * The worker's own check before it touches a file: the server's file rules applied again on the
 * real path (symlinks resolved), protected paths, and writes that a symlink leads out of the
 * work directory.
 */
export class FileGuard {
  /** What decisions on this worker depend on: the layers, the work directory, protected paths, real paths. */
  readonly context: EvaluationContext;
  /** The work directory's device: a file there is on an ordinary file system, not procfs. */
  readonly workDevice: number;
  /** Every rule of every layer, as the server sent them. */
  readonly rules: Guard["static"];
  /**
   * What the file tools' decisions depend on, as text: their rules in each layer, the protected
   * paths and the folders. Guards with equal keys decide every path alike, whatever their rules
   * for other tools (an approval for a shell command adds one).
   */
  readonly fileKey: string;

  /** With `history`, git commands that print what git holds ask when it holds a file the rules deny to read. */
  constructor(
    guard: Guard,
    readonly workDir: string,
    private readonly history?: GitHistory,
  ) {
    const layers = { agent: ruleset(guard.agent), static: ruleset(guard.static)!, runtime: ruleset(guard.runtime) };
    this.context = { ...evaluationContext({ layers, workDir, protectedPaths: guard.protectedPaths, resolveRealPath }), hasGitHead };
    this.rules = [...(guard.agent ?? []), ...guard.static, ...guard.runtime];
    const { cwd, home, protectedPaths } = this.context;
    this.fileKey = JSON.stringify([
      cwd,
      home,
      protectedPaths,
      guard.agent === null,
      forFileTools(guard.agent),
      forFileTools(guard.static),
      forFileTools(guard.runtime),
    ]);
    this.workDevice = fs.statSync(workDir).dev;
    this.hiddenPaths = guard.protectedPaths.flatMap((p) => [p, resolveRealPath(p)]);
  }

  private readonly hiddenPaths: string[];
  /** Folders judged as the sandbox would judge them under these rules. */
  private readonly folders = new Map<string, boolean>();

  /** The absolute path a tool's argument names, spelled as the gate spells it (`~` is the home directory). */
  resolve(requested: string): string {
    return absolutePath(requested, this.workDir, this.context.home);
  }

  /**
   * The check on the name a tool was given: the absolute path to open, or ToolRefusedError unless the
   * rules allow it (an ask passes only for a call the server let run on an ask).
   */
  check(tool: string, requested: string, granted: Granted = "rules"): string {
    const absolute = this.resolve(requested);
    const refused = this.nameRefusal(tool, requested, absolute, granted);
    if (refused) throw new ToolRefusedError(refused);
    return absolute;
  }

  /**
   * The check on what was really opened (or is about to be made), by its real path read back from
   * the descriptor, after check() on its name: the rules on that path, and whatever the sandbox
   * would hide from a command. A person approved the name they saw: a path it leads elsewhere
   * must be allowed outright.
   */
  checkOpened(tool: string, requested: string, named: string, real: string, granted: Granted = "rules"): void {
    const refused = this.openedRefusal(tool, requested, named, real, granted);
    if (refused) throw new ToolRefusedError(refused);
  }

  /**
   * The check of a write that reaches `via`, a file of the catalogue, through a symlink standing at
   * that name (`.git/config -> ../notes.txt`, then a write to `notes.txt`) or a hard link to it: decided as a write to
   * `via` itself. A person approved the name they saw, not `via`; a write by the name `via` itself
   * was decided by check().
   */
  checkSteeringLink(tool: string, requested: string, named: string, via: string, granted: Granted = "rules", link: "symlink" | "hard link" = "symlink"): void {
    if (named === via) return;
    const verdict = decideAbsolute(tool, via, { ...this.context, resolveRealPath: asWritten });
    const how = link === "symlink" ? "is a symlink that leads to it" : "is the same file (a hard link)";
    if (!permits(verdict, granted === "person" ? "rules" : granted))
      throw new ToolRefusedError(`refused ${tool} ${requested}: ${via} ${how}, so the write changes ${via}: ${verdict.reason}; write it as ${via} to be asked`);
  }

  /** Why check() refuses a name, or null. */
  private nameRefusal(tool: string, requested: string, absolute: string, granted: Granted): string | null {
    const real = resolveRealPath(absolute);
    const outside = this.writeOutside(tool, requested, absolute, real);
    if (outside) return outside;
    const verdict = decideFile(tool, requested, this.context);
    if (!permits(verdict, granted)) return `refused ${tool} ${requested}: ${verdict.reason}`;
    // The sandbox hides protected paths from commands; file tools do not reveal them either.
    const hidden = this.hiddenPaths.find((p) => isInside(real, p));
    return hidden ? `refused ${tool} ${requested}: ${real} is inside the protected path ${hidden}` : null;
  }

  /** Why checkOpened() refuses what was opened, or null. */
  private openedRefusal(tool: string, requested: string, named: string, real: string, granted: Granted): string | null {
    const via = real === named ? "" : `${requested} leads to ${real}: `;
    // Where the real path is the name, check() (always called first) has decided it already.
    if (real !== named) {
      const verdict = decideAbsolute(tool, real, { ...this.context, resolveRealPath: asWritten });
      if (!permits(verdict, granted === "person" ? "rules" : granted)) return `refused ${tool} ${requested}: ${via}${verdict.reason}`;
    }
    const hidden = hiddenFromCommands(real, this.workDir, this.context, this.folders, tool === "read_file");
    if (hidden) return `refused ${tool} ${requested}: ${via}${hidden}`;
    return this.writeOutside(tool, requested, named, real);
  }

  private writeOutside(tool: string, requested: string, named: string, real: string): string | null {
    if (FILE_WRITE_TOOLS.has(tool) && isInside(named, this.workDir) && !isInside(real, resolveRealPath(this.workDir)))
      return `refused ${tool} ${requested}: a symlink leads outside the work directory (${real})`;
    return null;
  }

  /**
   * A shell command checked again here, its file operands on their real paths: anything but allow
   * refuses it, unless granted on an ask. `git` lists the repository's history where the command
   * prints from it (the sandbox's confined git; git on the host without it). `links`: a file it
   * writes where a steering file's symlink leads is decided as that file, as a file tool's write is,
   * and a person's approval of the command, which did not show that file, does not cover it.
   */
  async checkShell(command: string, granted: Granted = "rules", git?: GitRunner, links?: SteeringLinkTargets): Promise<void> {
    let throughLink = false;
    const steeringLink = (absolute: string) => {
      const via = links ? linkedSteeringFile(absolute, links, this.workDir) : null;
      throughLink ||= via !== null;
      return via;
    };
    const decision = await this.decideShell(command, { ...this.context, steeringLink }, git);
    if (!permits(decision, throughLink && granted === "person" ? "rules" : granted)) throw new ToolRefusedError(`refused shell_exec: ${decision.reason}`);
  }

  /** The decision, with the history listed (without holding the event loop) only when the command prints from it. */
  private async decideShell(command: string, context: EvaluationContext, git?: GitRunner): Promise<Decision> {
    const call = { tool: "shell_exec", args: { command } };
    if (!this.history) return evaluate(call, context);
    let printsHistory = false;
    const noted = () => {
      printsHistory = true;
      return null;
    };
    const first = evaluate(call, { ...context, deniedInHistory: noted });
    if (!printsHistory) return first;
    const listed = await this.history.listed(git);
    const isDenied = (p: string) => decideAbsolute("read_file", p, context).action === "deny";
    const deniedInHistory = (words: readonly (string | null)[]) => listed.firstDenied(this.fileKey, isDenied) ?? listed.unnamedBlob(words);
    return evaluate(call, { ...context, deniedInHistory });
  }

  /**
   * Whether glob and grep may reveal a file they came across: exactly what read_file would read
   * under the call's grant, checked on the file's real path (where a symlink leads elsewhere, the
   * real path must also be allowed outright to a person's grant, and to the search tool itself).
   * The sandbox's hiding comes from the same checks, so `grep -r` in a command sees no more.
   */
  mayReveal(tool: string, absolute: string, real: string, granted: Granted): boolean {
    return (
      !this.nameRefusal("read_file", absolute, this.resolve(absolute), granted) &&
      !this.openedRefusal("read_file", absolute, absolute, real, granted) &&
      (real === absolute || !this.openedRefusal(tool, absolute, absolute, real, granted))
    );
  }

  /** The real path a name leads to now, by the resolution the checks use. */
  realPath(absolute: string): string {
    return resolveRealPath(absolute);
  }
}

/** The catalogue file a write of `absolute` changes through a steering file's symlink of the work tree, or null. */
function linkedSteeringFile(absolute: string, links: SteeringLinkTargets, workDir: string): string | null {
  const real = resolveNow(absolute);
  const via = links.through(real, fs.statSync(real, { throwIfNoEntry: false }) ?? null);
  return via && steeringFileOf(via, workDir, hasGitHead) ? via : null;
}
