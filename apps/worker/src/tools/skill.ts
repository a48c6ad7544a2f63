import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../tool.js";

export const SKILLS_DIR = "skills";

/** `skills/NAME.md` or `skills/NAME/SKILL.md` in the work directory. */
export async function skillFile(workDir: string, name: string): Promise<string | null> {
  for (const candidate of [path.join(workDir, SKILLS_DIR, `${name}.md`), path.join(workDir, SKILLS_DIR, name, "SKILL.md")]) {
    if (await fs.stat(candidate).then((s) => s.isFile(), () => false)) return candidate;
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
