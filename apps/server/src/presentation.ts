import type { ToolCall } from "@gatehouse/policy";
import type { McpOrigin, Presentation, SessionInfo } from "@gatehouse/protocol";
import { createTwoFilesPatch } from "diff";

export const MAX_PRESENTATION_CHARS = 16_000;
export const MAX_PRESENTATION_LINES = 300;

/** Cuts text to a readable size, saying how large the whole is. */
export function cutTo(kind: Presentation["kind"], content: string, cwd?: string, whole = false): Presentation {
  if (whole) return { kind, content, truncated: false, fullSize: content.length, ...(cwd ? { cwd } : {}) };
  const lines = content.split("\n");
  let shown = lines.length > MAX_PRESENTATION_LINES ? lines.slice(0, MAX_PRESENTATION_LINES).join("\n") : content;
  if (shown.length > MAX_PRESENTATION_CHARS) shown = shown.slice(0, MAX_PRESENTATION_CHARS);
  const truncated = shown.length < content.length;
  return {
    kind,
    content: truncated ? `${shown}\n… (cut: ${content.length} characters, ${lines.length} lines in all)` : shown,
    truncated,
    fullSize: content.length,
    ...(cwd ? { cwd } : {}),
  };
}

export interface PresentationSources {
  workDir: (session: SessionInfo) => string;
  /** The file's current text when a person may see it (read_file allows it), "" for a new file, null otherwise. */
  currentText: (session: SessionInfo, path: string) => Promise<string | null>;
  /** Where an MCP tool of the session's worker comes from; undefined for other tools. */
  mcpOrigin?: (session: SessionInfo, tool: string) => McpOrigin | undefined;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** An MCP call as a person should judge it: which server, which of its tools, what it claims, with what. */
function mcpCall(origin: McpOrigin, args: Record<string, unknown>): string {
  const claims = Object.entries(origin.annotations).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  const annotations = claims.length > 0 ? claims.join(", ") : "none";
  return `MCP server: ${origin.server}\ntool: ${origin.tool}\nannotations: ${annotations}\narguments:\n${JSON.stringify(args, null, 2)}\n`;
}

function edited(current: string, args: Record<string, unknown>): string {
  const oldText = str(args.old_string);
  const newText = str(args.new_string);
  if (oldText === "") return current;
  return args.replace_all === true ? current.split(oldText).join(newText) : current.replace(oldText, () => newText);
}

/**
 * The change a write or edit makes, from its own arguments, when the file's current content may
 * not be shown (read_file does not allow it): the text it writes, or the text it replaces and with what.
 */
function unreadDiff(tool: string, file: string, args: Record<string, unknown>): string {
  const [before, after] = tool === "write_file" ? ["", str(args.content)] : [str(args.old_string), str(args.new_string)];
  const what = tool === "write_file" ? "the whole new content" : "the text it replaces and its replacement";
  const patch = createTwoFilesPatch(`a/${file}`, `b/${file}`, before, after, undefined, undefined, { context: 3 });
  return `${file}: the current content is not shown (read_file does not allow it now); ${what}:\n${patch.replace(/^=+\n/, "")}`;
}

/** What a person sees before answering: a unified diff, or the command and its directory. */
export async function present(src: PresentationSources, session: SessionInfo, call: ToolCall, whole = false): Promise<Presentation | null> {
  const args = call.args;
  const cut = (kind: Presentation["kind"], content: string, cwd?: string) => cutTo(kind, content, cwd, whole);
  if (call.tool === "shell_exec") return cut("command", str(args.command), src.workDir(session));
  const origin = src.mcpOrigin?.(session, call.tool);
  if (origin) return cut("text", mcpCall(origin, args));
  if (call.tool === "write_file" || call.tool === "edit_file") {
    const file = str(args.path) || str(args.file_path);
    const current = await src.currentText(session, file);
    if (current === null) return cut("diff", unreadDiff(call.tool, file, args));
    if (call.tool === "edit_file" && !current.includes(str(args.old_string))) {
      return cut(
        "text",
        `edit_file ${file}: old_string is not in the file as it is now, so the edit would fail.\n` +
          `--- old_string\n${str(args.old_string)}\n--- new_string\n${str(args.new_string)}\n`,
      );
    }
    const next = call.tool === "write_file" ? str(args.content) : edited(current, args);
    const patch = createTwoFilesPatch(`a/${file}`, `b/${file}`, current, next, undefined, undefined, { context: 3 });
    return cut("diff", patch.replace(/^=+\n/, ""));
  }
  return cut("text", JSON.stringify(args, null, 2));
}
