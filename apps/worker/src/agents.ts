import fs from "node:fs";
import path from "node:path";
import { AgentDefinition, BUILTIN_AGENT_NAMES, PermissionMap } from "@gatehouse/protocol";
import { z } from "zod";
import { readInside } from "./definition-file.js";
import { splitFrontMatter } from "./front-matter.js";
import { AgentsFolderRefusedError } from "./errors.js";

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

/** The agents of one folder, shown as `shownAs/NAME.md`; a file that does not parse is left out and logged with its problem. */
function loadFolder(root: string, shownAs: string, mayWiden: boolean, warn: (problem: string) => void): AgentDefinition[] {
  if (!fs.existsSync(root)) return [];
  const agents: AgentDefinition[] = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".md")) continue;
    const shown = path.join(shownAs, entry.name);
    try {
      const agent = { ...parseAgentFile(readInside(root, path.join(root, entry.name), shown), shown), mayWiden };
      if (agents.some((a) => a.name === agent.name)) throw new Error(`${shown}: a second agent named "${agent.name}"`);
      agents.push(agent);
    } catch (err) {
      warn(`agent not loaded: ${(err as Error).message}`);
    }
  }
  return agents;
}

/** The agents in the work directory's agents folder: the agent writes there, so they can only narrow. */
export function loadAgents(workDir: string, warn: (problem: string) => void): AgentDefinition[] {
  return loadFolder(path.join(workDir, AGENTS_DIR), AGENTS_DIR, false, warn);
}

/**
 * The worker's agents: those of its configured folder (outside the work directory, so the agent
 * cannot write them), which may widen, then the work directory's, which can only narrow; a work
 * directory agent cannot take a configured one's name.
 */
export function workerAgents(workDir: string, configured: string | undefined, warn: (problem: string) => void): AgentDefinition[] {
  const trusted = configured ? loadFolder(trustedFolder(workDir, configured), configured, true, warn) : [];
  const own = loadAgents(workDir, warn).filter((a) => {
    const taken = trusted.some((t) => t.name === a.name);
    if (taken) warn(`agent not loaded: ${a.file}: the agent name "${a.name}" belongs to an agent of ${configured}`);
    return !taken;
  });
  return [...trusted, ...own];
}

function trustedFolder(workDir: string, configured: string): string {
  let real: string;
  try {
    real = fs.realpathSync(configured);
  } catch (err) {
    throw new AgentsFolderRefusedError(`the agents folder ${configured} cannot be opened: ${(err as Error).message}`);
  }
  if (real === workDir || real.startsWith(`${workDir}/`))
    throw new AgentsFolderRefusedError(
      `the agents folder ${configured} is inside the work directory ${workDir}, which the agent writes; its agents could widen what it may do`,
    );
  return real;
}
