import { cutText, type Message } from "@gatehouse/protocol";
import type { Provider } from "./providers/provider.js";

/**
 * Where a session's model is sent its history from: the messages before `summarisedThrough` as
 * one summary, long tool results before `trimmedThrough` trimmed. The session's history itself is
 * never changed.
 */
export interface Checkpoint {
  summarisedThrough: number;
  trimmedThrough: number;
  summary: string | null;
  /** Every call refused before the checkpoint, word for word, so that the model does not ask again for what a person refused. */
  refusals: string[];
}

export const NO_CHECKPOINT: Checkpoint = { summarisedThrough: 0, trimmedThrough: 0, summary: null, refusals: [] };

/** Writes the summary of `part` of a session, carrying on from the previous summary. */
export type Summariser = (previous: string | null, part: readonly Message[], signal: AbortSignal) => Promise<string>;

/** How the gate's refusals begin, in the messages the model receives for calls that did not run (tool-messages.ts). */
const REFUSED = ["ToolDeniedError:", "ToolRejectedError:"];

/** The refused calls of `part`: the call as the model made it, and the answer it was given. */
export function refusalsIn(part: readonly Message[]): string[] {
  const calls = new Map<string, string>();
  const found: string[] = [];
  for (const m of part) {
    if (m.role === "assistant") for (const c of m.toolCalls) calls.set(c.callId, `${c.toolName} ${c.arguments}`);
    else if (m.role === "tool" && REFUSED.some((p) => m.content.startsWith(p))) found.push(`${calls.get(m.callId) ?? m.toolName}: ${m.content}`);
  }
  return found;
}

/** What the model is sent in place of the summarised messages. */
export function checkpointMessage(c: Checkpoint): Message {
  const refusals =
    c.refusals.length === 0 ? "" : `\n\nCalls refused earlier, word for word (do not make them again):\n${c.refusals.map((r) => `- ${r}`).join("\n")}`;
  return {
    role: "user",
    text:
      `[Checkpoint: the first ${c.summarisedThrough} messages of this session were summarised to fit the model's context window.]\n\n` +
      `${c.summary ?? ""}${refusals}`,
  };
}

/** The longest a tool result or a message's text is written into a summary request. */
const RENDERED_CHARS = 2_000;

const clip = (text: string) => cutText(text, RENDERED_CHARS, (total) => ` [... ${total - RENDERED_CHARS} more characters]`).text;

/** `part` as plain text, one block per message. */
function render(part: readonly Message[]): string {
  return part
    .map((m) => {
      if (m.role === "user") return `USER: ${clip(m.text)}`;
      if (m.role === "tool") return `RESULT of ${m.toolName}${m.isError ? " (error)" : ""}: ${clip(m.content)}`;
      const calls = m.toolCalls.map((c) => `\nCALL ${c.toolName} ${clip(c.arguments)}`).join("");
      return `ASSISTANT: ${clip(m.text)}${calls}`;
    })
    .join("\n\n");
}

const INSTRUCTIONS =
  "You write checkpoints of a coding agent's session, so that it can carry on without the messages they replace. " +
  "Keep: the user's requests and what they asked for in their words, decisions taken, files read and changed, what was found, " +
  "what is done and what is left, errors met. Be specific and brief. Answer with the checkpoint only.";

/** A summariser that asks a model; a model that fails or answers nothing leaves the work to `fallback`. */
export function modelSummariser(provider: Provider, fallback: Summariser, onFailure: (err: unknown) => void): Summariser {
  return async (previous, part, signal) => {
    const earlier = previous ? `The checkpoint so far:\n${previous}\n\n` : "";
    const text = `${earlier}The messages that follow it:\n\n${render(part)}\n\nWrite the new checkpoint.`;
    try {
      const response = await provider.respond({ system: INSTRUCTIONS, history: [{ role: "user", text }], tools: [], signal, onText: () => undefined });
      if (response.text.trim()) return response.text.trim();
    } catch (err) {
      if (signal.aborted) throw err;
      onFailure(err);
    }
    return fallback(previous, part, signal);
  };
}

/** The longest summary written without a model: its start (the first requests) and its end (the latest) are kept. */
const DIGEST_CHARS = 8_000;

function bounded(text: string): string {
  if (text.length <= DIGEST_CHARS) return text;
  return `${text.slice(0, DIGEST_CHARS / 2)}\n[...]\n${text.slice(-DIGEST_CHARS / 2)}`;
}

/** A summary without a model: the user's requests and the calls made, counted by tool. */
export const digest: Summariser = (previous, part) => {
  const asked = part.flatMap((m) => (m.role === "user" ? [`- ${clip(m.text)}`] : []));
  const calls = new Map<string, number>();
  for (const m of part) if (m.role === "assistant") for (const c of m.toolCalls) calls.set(c.toolName, (calls.get(c.toolName) ?? 0) + 1);
  const made = [...calls].map(([tool, n]) => `${tool} ${n}x`).join(", ");
  const lastWords = part.findLast((m): m is Extract<Message, { role: "assistant" }> => m.role === "assistant" && m.text !== "")?.text;
  return Promise.resolve(
    bounded(
      [
        previous ?? "",
        asked.length > 0 ? `The user asked:\n${asked.join("\n")}` : "",
        made ? `Tool calls made: ${made}.` : "",
        lastWords ? `The assistant last said: ${clip(lastWords)}` : "",
      ]
        .filter(Boolean)
        .join("\n\n"),
    ),
  );
};
