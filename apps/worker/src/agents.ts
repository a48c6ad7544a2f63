import fs from "node:fs";
import path from "node:path";
import { AgentDefinition, BUILTIN_AGENT_NAMES, PermissionMap } from "@gatehouse/protocol";
import { z } from "zod";
import { readInside } from "./definition-file.js";
import { splitFrontMatter } from "./front-matter.js";

export const AGENTS_DIR = "agents";

/** Names the server gives its own agents; a worker file cannot replace them and weaken, say, explore. */
const RESERVED: ReadonlySet<string> = new Set(BUILTIN_AGENT_NAMES);

const FrontMatter = z
  .object({
    name: z.string().optional(),
    description: z.string({ error: "description must be text" }).min(1, "description must not be empty"),
    permission: PermissionMap.optional(),
    model: z.string().min(1).optional(),
    "may-spawn": z.boolean({ error: "may-spawn must be true or false" }).optional(),
  })
  .strict();

/** One agent file: `agents/NAME.md` with front matter (name, description, permission, model, may-spawn) and the agent's instructions. */
export function parseAgentFile(text: string, file: string): AgentDefinition {
  const fail = (what: string) => new Error(`${file}: ${what}`);
  let parsed: ReturnType<typeof splitFrontMatter>;
  try {
    parsed = splitFrontMatter(text);
  } catch (err) {
    throw fail((err as Error).message);
  }
  const fields = FrontMatter.safeParse(parsed.data);
  if (!fields.success) throw fail(fields.error.issues.map((i) => `${i.path.join(".") || "front matter"}: ${i.message}`).join("; "));
  const f = fields.data;
  const name = f.name ?? path.basename(file, ".md");
  const agent = AgentDefinition.safeParse({
    name,
    description: f.description,
    prompt: parsed.body.trim(),
    permission: f.permission ?? null,
    model: f.model ?? null,
    maySpawn: f["may-spawn"] ?? false,
    file,
  });
  if (!agent.success) throw fail(agent.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  if (RESERVED.has(agent.data.name)) throw fail(`the agent name "${agent.data.name}" belongs to a built-in agent; choose another`);
  return agent.data;
}

/** The agents in the work directory's agents folder; a file that does not parse is left out and logged with its problem. */
export function loadAgents(workDir: string, warn: (problem: string) => void): AgentDefinition[] {
  const root = path.join(workDir, AGENTS_DIR);
  if (!fs.existsSync(root)) return [];
  const agents: AgentDefinition[] = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".md")) continue;
    const file = path.join(root, entry.name);
    try {
      const shown = path.join(AGENTS_DIR, entry.name);
      const agent = parseAgentFile(readInside(root, file, shown), shown);
      if (agents.some((a) => a.name === agent.name)) throw new Error(`${AGENTS_DIR}/${entry.name}: a second agent named "${agent.name}"`);
      agents.push(agent);
    } catch (err) {
      warn(`agent not loaded: ${(err as Error).message}`);
    }
  }
  return agents;
}
