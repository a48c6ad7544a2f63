import { criticalInFile } from "./critical.js";
import { decideFile, decideSubject, namesProcessFiles, type DecideContext } from "./decide.js";
import type { Decision, Verdict } from "./decision.js";
import { applyMode, type Mode } from "./modes.js";
import { decideNetworkCall, NETWORK_TOOL } from "./network/decide-network.js";
import { absolutePath, unusablePath } from "./paths.js";
import { decideShell, decidingVerdict } from "./shell/decide-shell.js";
import { defaultTier, type Tier } from "./tiers.js";

export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
}

export interface EvaluationContext extends DecideContext {
  mode?: Mode;
  /** The tier the tool declared; built-in defaults otherwise. */
  tier?: Tier;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The subject a tool's patterns are matched against (docs/design.md, "What a pattern is matched against"). */
export function subjectArgument(call: ToolCall): { kind: "path" | "text"; value: string } {
  const a = call.args;
  switch (call.tool) {
    case "read_file":
    case "write_file":
    case "edit_file":
      return { kind: "path", value: str(a.path) ?? str(a.file_path) ?? "" };
    case "glob":
      return str(a.pattern) !== undefined ? { kind: "text", value: str(a.pattern)! } : { kind: "path", value: str(a.path) ?? "." };
    case "grep":
      return { kind: "path", value: str(a.path) ?? "." };
    case "skill":
      return { kind: "text", value: str(a.name) ?? "" };
    case "task":
      return { kind: "text", value: str(a.agent) ?? "" };
    case "shell_exec":
      return { kind: "text", value: str(a.command) ?? "" };
    case NETWORK_TOOL:
      return { kind: "text", value: `${str(a.host) ?? ""}:${String(a.port ?? "")}` };
    default:
      return { kind: "text", value: call.tool };
  }
}

function decideCall(call: ToolCall, ctx: EvaluationContext): { verdicts: Verdict[]; critical: string | null; subject: string } {
  const subject = subjectArgument(call);
  if (call.tool === "shell_exec") {
    const { verdicts, critical } = decideShell(subject.value, ctx);
    return { verdicts, critical, subject: subject.value };
  }
  if (call.tool === NETWORK_TOOL) {
    const verdict = decideNetworkCall(call.args, ctx.layers);
    return { verdicts: [verdict], critical: null, subject: verdict.subject };
  }
  if (subject.kind === "path") {
    const unusable = unusablePath(subject.value);
    if (unusable) return { verdicts: [decideFile(call.tool, subject.value, ctx)], critical: null, subject: subject.value };
    const absolute = absolutePath(subject.value, ctx.cwd, ctx.home);
    const verdict = decideFile(call.tool, subject.value, ctx);
    return { verdicts: [verdict], critical: criticalInFile(call.tool, absolute), subject: verdict.subject };
  }
  const verdict = decideSubject(ctx.layers, call.tool, { kind: "text", text: subject.value }, subject.value);
  return { verdicts: [searchesProcessFiles(call, verdict)], critical: null, subject: subject.value };
}

/** glob and grep never look into a process's own files, whatever the pattern or path. */
function searchesProcessFiles(call: ToolCall, verdict: Verdict): Verdict {
  if (call.tool !== "glob" && call.tool !== "grep") return verdict;
  const named = [call.args.pattern, call.args.path].find((v) => typeof v === "string" && v.startsWith("/") && namesProcessFiles(v));
  return named
    ? {
        action: "deny",
        subject: verdict.subject,
        rule: null,
        reason: `${String(named)} names a process's own files (environment, memory, open files); no tool reads them`,
      }
    : verdict;
}

/** The gate's answer for one tool call: rules, then the session mode and critical patterns. */
export function evaluate(call: ToolCall, ctx: EvaluationContext): Decision {
  const mode = ctx.mode ?? "default";
  const { verdicts, critical, subject } = decideCall(call, ctx);
  const decisive = decidingVerdict(verdicts);
  // A write that decides what a program runs is an exec-tier act: accept-edits never allows it.
  const tier = decisive.steers ? "exec" : (ctx.tier ?? defaultTier(call.tool));
  const moded = applyMode(decisive.action, tier, mode, critical);
  return {
    action: moded.action,
    tool: call.tool,
    layer: decisive.rule?.layer ?? null,
    rule: decisive.rule,
    pattern: decisive.rule?.pattern ?? null,
    subject,
    reason: moded.note ? `${moded.note}; the rules said ${decisive.action}: ${decisive.reason}` : decisive.reason,
    tier,
    mode,
    ruleAction: decisive.action,
    critical,
    subcommands: call.tool === "shell_exec" ? verdicts : [],
  };
}
