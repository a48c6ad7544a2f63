import path from "node:path";
import { resolveRealPath as resolveNow } from "@gatehouse/fs-guard";
import { decideFile, evaluate, FILE_TOOLS, FILE_WRITE_TOOLS, isInside, Ruleset, toolKeyMatches, type EvaluationContext, type Rule } from "@gatehouse/policy";
import { evaluationContext, perRun } from "@gatehouse/policy/node";
import type { Guard } from "@gatehouse/protocol";

export class ToolRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolRefused";
  }
}

/** Real paths, resolved once per synchronous run: a call's decision and its check ask about the same path. */
const realPaths = perRun<string>();
const resolveRealPath = (absolute: string) => realPaths(absolute, () => resolveNow(absolute));

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
  /** Every rule of every layer, as the server sent them. */
  readonly rules: Guard["static"];
  /**
   * What the file tools' decisions depend on, as text: their rules in each layer, the protected
   * paths and the folders. Guards with equal keys decide every path alike, whatever their rules
   * for other tools (an approval for a shell command adds one).
   */
  readonly fileKey: string;

  constructor(
    guard: Guard,
    readonly workDir: string,
  ) {
    const layers = { agent: ruleset(guard.agent), static: ruleset(guard.static)!, runtime: ruleset(guard.runtime) };
    this.context = evaluationContext({ layers, workDir, protectedPaths: guard.protectedPaths, resolveRealPath });
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
    this.hiddenPaths = guard.protectedPaths.flatMap((p) => [p, resolveRealPath(p)]);
  }

  private readonly hiddenPaths: string[];

  /** The absolute path to use, or ToolRefused when the rules deny it on its real path. */
  check(tool: string, requested: string): string {
    const verdict = decideFile(tool, requested, this.context);
    if (verdict.action === "deny") throw new ToolRefused(`refused ${tool} ${requested}: ${verdict.reason}`);
    const absolute = path.resolve(this.workDir, requested);
    // The sandbox hides protected paths from commands; file tools do not reveal them either.
    const real = resolveRealPath(absolute);
    const hidden = this.hiddenPaths.find((p) => isInside(real, p));
    if (hidden) throw new ToolRefused(`refused ${tool} ${requested}: ${real} is inside the protected path ${hidden}`);
    if (FILE_WRITE_TOOLS.has(tool) && isInside(absolute, this.workDir)) {
      if (!isInside(real, resolveRealPath(this.workDir)))
        throw new ToolRefused(`refused ${tool} ${requested}: a symlink leads outside the work directory (${real})`);
    }
    return absolute;
  }

  /** A shell command checked again here, its file operands on their real paths: a deny refuses it. */
  checkShell(command: string): void {
    const decision = evaluate({ tool: "shell_exec", args: { command } }, this.context);
    if (decision.action === "deny") throw new ToolRefused(`refused shell_exec: ${decision.reason}`);
  }

  /** Whether read_file may reveal this file (for glob and grep, which skip the others). */
  mayRead(absolute: string): boolean {
    try {
      this.check("read_file", absolute);
      return true;
    } catch {
      return false;
    }
  }
}
