import path from "node:path";
import type { ToolCall } from "@gatehouse/policy";
import { inSight, lookAlikes, safeLine, showJson, showText, type McpOrigin, type Presentation, type SessionInfo } from "@gatehouse/protocol";
import { createTwoFilesPatch } from "diff";

export const MAX_PRESENTATION_CHARS = 16_000;
export const MAX_PRESENTATION_LINES = 300;
/** What the cut presentation keeps in sight of a line: a longer line, or run of spaces or blank lines, is left out with a marker. */
const SIGHT = { maxLineChars: 2000, maxSpaceRun: 40, maxBlankRun: 3 };

/** Content made safe to show: its text with every hidden code point escaped, and what was escaped. */
export interface SafeContent {
  text: string;
  hidden: number;
  kinds: string[];
  /** The raw text the look-alike check reads. */
  raw: string;
}

const safe = (raw: string, oneLine = false): SafeContent => ({ ...showText(raw, { oneLine }), raw });

/** Cuts safe content to a readable size, saying how large the whole is and what it left out of sight. */
export function cutTo(kind: Presentation["kind"], content: SafeContent, cwd?: string, whole = false): Presentation {
  const marks = {
    hidden: content.hidden,
    hiddenKinds: content.kinds,
    lookAlikes: lookAlikes(content.raw),
    ...(cwd ? { cwd: safeLine(cwd) } : {}),
  };
  const text = content.text;
  if (whole) return { kind, content: text, truncated: false, fullSize: text.length, ...marks };
  const fitted = inSight(text, { ...SIGHT, maxLines: MAX_PRESENTATION_LINES, diff: kind === "diff" });
  let shown = fitted.text;
  if (shown.length > MAX_PRESENTATION_CHARS) shown = shown.slice(0, MAX_PRESENTATION_CHARS);
  const truncated = shown !== text;
  const lines = text.split("\n").length;
  return {
    kind,
    content: truncated ? `${shown}\n… (cut: ${text.length} characters, ${lines} lines in all)` : shown,
    truncated,
    fullSize: text.length,
    ...marks,
    ...(fitted.cuts.length > 0 ? { cuts: fitted.cuts } : {}),
  };
}

export interface PresentationSources {
  workDir: (session: SessionInfo) => string;
  /**
   * The file's current text, "" for a new file; or why it is not shown: read_file does not allow
   * it, or the worker could not read it (too large, not a regular file), which must never look like
   * a new file or an edit that fails.
   */
  currentText: (session: SessionInfo, path: string) => Promise<string | { unread: string }>;
  /** Where an MCP tool of the session's worker comes from; undefined for other tools. */
  mcpOrigin?: (session: SessionInfo, tool: string) => McpOrigin | undefined;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** An MCP call as a person should judge it: which server, which of its tools, what it claims, with what. */
function mcpCall(origin: McpOrigin, args: Record<string, unknown>): SafeContent {
  const claims = Object.entries(origin.annotations).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  const annotations = claims.length > 0 ? claims.join(", ") : "none";
  const head = showText(`MCP server: ${origin.server}\ntool: ${origin.tool}\nannotations: ${annotations}\narguments:\n`);
  const json = showJson(args, 2);
  const raw = `${origin.server}\n${origin.tool}\n${annotations}\n${JSON.stringify(args)}`;
  return { text: `${head.text}${json.text}\n`, hidden: head.hidden + json.hidden, kinds: [...new Set([...head.kinds, ...json.kinds])], raw };
}

/** Arguments as JSON made safe to show. */
const argsJson = (args: Record<string, unknown>): SafeContent => ({ ...showJson(args, 2), raw: JSON.stringify(args) });

function edited(current: string, args: Record<string, unknown>): string {
  const oldText = str(args.old_string);
  const newText = str(args.new_string);
  if (oldText === "") return current;
  return args.replace_all === true ? current.split(oldText).join(newText) : current.replace(oldText, () => newText);
}

/** Safe parts one after the other. */
const joined = (...parts: SafeContent[]): SafeContent => ({
  text: parts.map((p) => p.text).join(""),
  hidden: parts.reduce((n, p) => n + p.hidden, 0),
  kinds: [...new Set(parts.flatMap((p) => p.kinds))],
  raw: parts.map((p) => p.raw).join(""),
});

/**
 * A file as a presentation names it: the path the call writes (`.` and `..` resolved, as the
 * gate resolves them) on one line, its newlines and tabs escaped, so that no name can draw lines
 * of a diff of its own (`README.md\n+++ b/README.md\n@@ …/../package.json`).
 */
function fileName(file: string): SafeContent {
  const name = safe(file === "" ? file : path.posix.normalize(file), true);
  // In a name a newline or a tab is no layout: it is counted and marked as any hidden character.
  const breaks = name.raw.match(/[\n\t]/g) ?? [];
  return { ...name, hidden: name.hidden + breaks.length, kinds: [...new Set([...name.kinds, ...breaks.map((b) => (b === "\n" ? "\\n" : "\\t"))])] };
}

/** A unified diff made safe to show, its header naming the file on one line. */
function diffOf(name: SafeContent, before: string, after: string): SafeContent {
  const patch = createTwoFilesPatch("", "", before, after, undefined, undefined, { context: 3 });
  const hunks = patch.indexOf("\n@@") < 0 ? "" : patch.slice(patch.indexOf("\n@@") + 1);
  const header = (side: string): SafeContent => ({ ...name, text: `${side}${name.text}\n`, hidden: 0, kinds: [] });
  return joined(header("--- a/"), { ...header("+++ b/"), hidden: name.hidden, kinds: name.kinds }, safe(hunks));
}

/**
 * The change a write or edit makes, from its own arguments, when the file's current content is
 * not shown (`why`): the text it writes, or the text it replaces and with what.
 */
function unreadDiff(tool: string, name: SafeContent, args: Record<string, unknown>, why: string): SafeContent {
  const [before, after] = tool === "write_file" ? ["", str(args.content)] : [str(args.old_string), str(args.new_string)];
  const what = tool === "write_file" ? "the whole new content" : "the text it replaces and its replacement";
  const note = safe(`: the current content is not shown (${why}); ${what}:\n`);
  return joined({ ...name, raw: "" }, note, diffOf(name, before, after));
}

/** What a person sees before answering: a unified diff, or the command and its directory, made safe to show. */
export async function present(src: PresentationSources, session: SessionInfo, call: ToolCall, whole = false): Promise<Presentation | null> {
  const args = call.args;
  const cut = (kind: Presentation["kind"], content: SafeContent, cwd?: string) => cutTo(kind, content, cwd, whole);
  if (call.tool === "shell_exec") return cut("command", safe(str(args.command)), src.workDir(session));
  const origin = src.mcpOrigin?.(session, call.tool);
  if (origin) return cut("text", mcpCall(origin, args));
  if (call.tool === "write_file" || call.tool === "edit_file") {
    const file = str(args.path) || str(args.file_path);
    const name = fileName(file);
    const current = await src.currentText(session, file);
    if (typeof current !== "string") return cut("diff", unreadDiff(call.tool, name, args, current.unread));
    if (call.tool === "edit_file" && !current.includes(str(args.old_string))) {
      const failing = safe(
        `: old_string is not in the file as it is now, so the edit would fail.\n` +
          `--- old_string\n${str(args.old_string)}\n--- new_string\n${str(args.new_string)}\n`,
      );
      return cut("text", joined(safe("edit_file "), name, failing));
    }
    const next = call.tool === "write_file" ? str(args.content) : edited(current, args);
    return cut("diff", diffOf(name, current, next));
  }
  return cut("text", argsJson(args));
}
