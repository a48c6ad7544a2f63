import type { LanguageModelV3FunctionTool, LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { Message, ToolDescriptor } from "@gatehouse/protocol";

/**
 * Each message in the form the SDK's providers take, made once: a session's history only grows,
 * so a step converts only the messages it has not seen, and the prompt costs no more to put
 * together at its 2,000th message than at its first.
 */
const converted = new WeakMap<Message, LanguageModelV3Message | null>();
const described = new WeakMap<ToolDescriptor, LanguageModelV3FunctionTool>();

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function convert(m: Message): LanguageModelV3Message | null {
  if (m.role === "user") return { role: "user", content: [{ type: "text", text: m.text }] };
  if (m.role === "tool") {
    const output = m.isError ? { type: "error-text" as const, value: m.content } : { type: "text" as const, value: m.content };
    return { role: "tool", content: [{ type: "tool-result", toolCallId: m.callId, toolName: m.toolName, output }] };
  }
  const content = [
    ...(m.text ? [{ type: "text" as const, text: m.text }] : []),
    ...m.toolCalls.map((c) => ({ type: "tool-call" as const, toolCallId: c.callId, toolName: c.toolName, input: parseArguments(c.arguments) })),
  ];
  return content.length > 0 ? { role: "assistant", content } : null;
}

function providerMessage(m: Message): LanguageModelV3Message | null {
  let found = converted.get(m);
  if (found === undefined) converted.set(m, (found = convert(m)));
  return found;
}

/** The system prompt and the history as the providers take them. */
export function providerPrompt(system: string, history: readonly Message[]): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [{ role: "system", content: system }];
  for (const m of history) {
    const p = providerMessage(m);
    if (p) prompt.push(p);
  }
  return prompt;
}

/** The tools as function tools with their JSON schemas. */
export function providerTools(tools: readonly ToolDescriptor[]): LanguageModelV3FunctionTool[] {
  return tools.map((t) => {
    let found = described.get(t);
    if (!found) described.set(t, (found = { type: "function", name: t.name, description: t.description, inputSchema: t.inputSchema }));
    return found;
  });
}
