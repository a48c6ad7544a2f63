import { splitModelId } from "./models.js";

/**
 * Context windows in tokens of common models, by the start of the model's name. An unknown model
 * has none, and is never compacted until the config gives it one (or its provider refuses a
 * request as too long, which compacts once and retries).
 */
const KNOWN: readonly (readonly [string, number])[] = [
  ["gpt-4.1", 1_047_576],
  ["gpt-5", 400_000],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4", 200_000],
  ["claude-", 200_000],
  ["qwen2.5", 32_768],
  ["qwen3", 131_072],
  ["llama3", 131_072],
  ["deepseek", 128_000],
  ["mistral", 32_768],
  ["gemma", 131_072],
];

/** The window of `model` (`provider:model` or `scripted`): the config's for the model, else for its provider, else a known one. */
export function contextWindow(model: string, configured: Readonly<Record<string, number>>): number | undefined {
  if (configured[model] !== undefined) return configured[model];
  if (!model.includes(":")) return undefined;
  const { provider, model: name } = splitModelId(model);
  if (configured[provider] !== undefined) return configured[provider];
  const bare = name.slice(name.lastIndexOf("/") + 1).toLowerCase();
  return KNOWN.find(([prefix]) => bare.startsWith(prefix))?.[1];
}
