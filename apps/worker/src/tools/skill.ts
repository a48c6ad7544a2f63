import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { SkillInfo } from "@gatehouse/protocol";
import { splitFrontMatter } from "../front-matter.js";
import { defineTool } from "../tool.js";

export const SKILLS_DIR = "skills";

/** Every skill in the work directory, with the description from its front matter. */
export function listSkills(workDir: string): SkillInfo[] {
  const root = path.join(workDir, SKILLS_DIR);
  const entries = fsSync.existsSync(root) ? fsSync.readdirSync(root, { withFileTypes: true }) : [];
  return entries.flatMap((e) => {
    const file = e.isDirectory() ? path.join(root, e.name, "SKILL.md") : e.name.endsWith(".md") ? path.join(root, e.name) : null;
    if (!file || !fsSync.existsSync(file)) return [];
    return [{ name: e.isDirectory() ? e.name : e.name.slice(0, -3), description: skillDescription(fsSync.readFileSync(file, "utf8")) }];
  });
}

/** The front matter's description, else the first line of text. */
function skillDescription(text: string): string {
  let parsed: ReturnType<typeof splitFrontMatter>;
  try {
    parsed = splitFrontMatter(text);
  } catch {
    parsed = { data: {}, body: text };
  }
  if (typeof parsed.data.description === "string") return parsed.data.description.trim();
  return (
    parsed.body
      .split("\n")
      .map((l) => l.replace(/^#+\s*/, "").trim())
      .find((l) => l !== "")
      ?.slice(0, 200) ?? ""
  );
}

/** `skills/NAME.md` or `skills/NAME/SKILL.md` in the work directory. */
export async function skillFile(workDir: string, name: string): Promise<string | null> {
  for (const candidate of [path.join(workDir, SKILLS_DIR, `${name}.md`), path.join(workDir, SKILLS_DIR, name, "SKILL.md")]) {
    if (
      await fs.stat(candidate).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return candidate;
  }
  return null;
}

export const skill = defineTool({
  name: "skill",
  description: "Load a skill's instructions by name from the work directory's skills folder.",
  tier: "read",
  input: z.object({ name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "name may hold letters, digits, '.', '_' and '-' only") }),
  async run(args, ctx) {
    const file = await skillFile(ctx.workDir, args.name);
    if (!file) return { ok: false, output: `no skill named ${args.name} in ${SKILLS_DIR}/` };
    return { ok: true, output: await fs.readFile(file, "utf8") };
  },
});
