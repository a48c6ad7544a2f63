import { limitedResult, type ToolResult } from "../tool.js";

type Block = { type: string; [key: string]: unknown };

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Base64 text's size in bytes, without decoding it. */
function decodedBytes(base64: string): number {
  const pad = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - pad);
}

/**
 * One content block as text. Results reach the model as text, so images, audio and binary
 * resources are described by type and size rather than passed on.
 */
function blockText(block: Block): string {
  switch (block.type) {
    case "text":
      return str(block.text);
    case "image":
    case "audio":
      return `[${block.type}: ${str(block.mimeType) || "unknown type"}, ${decodedBytes(str(block.data))} bytes, not shown]`;
    case "resource": {
      const r = (block.resource ?? {}) as Record<string, unknown>;
      const head = `[resource ${str(r.uri)}${r.mimeType ? ` (${str(r.mimeType)})` : ""}]`;
      return typeof r.text === "string" ? `${head}\n${r.text}` : `${head} ${decodedBytes(str(r.blob))} bytes of binary content, not shown`;
    }
    case "resource_link":
      return `[resource link: ${str(block.uri)}${block.name ? ` "${str(block.name)}"` : ""}${block.description ? ` — ${str(block.description)}` : ""}]`;
    default:
      return `[content of type ${JSON.stringify(block.type)}, not shown]`;
  }
}

/** An MCP tool result as the model sees it: content blocks in order, cut like any other output. */
export function mcpResult(result: Record<string, unknown>): ToolResult {
  const content = Array.isArray(result.content) ? (result.content as Block[]) : [];
  let text = content.map(blockText).join("\n");
  if (content.length === 0 && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent, null, 2);
  if (content.length === 0 && "toolResult" in result) text = JSON.stringify(result.toolResult, null, 2);
  return limitedResult(result.isError !== true, text);
}
