import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { SkillInfo } from "@gatehouse/protocol";
import { readInside } from "../definition-file.js";
import { splitFrontMatter } from "../front-matter.js";
import { defineTool, type ToolContext } from "../tool.js";

export const SKILLS_DIR = "skills";

/** Every skill in the work directory, with the description from its front matter; a file that leads outside the folder is left out. */
export function listSkills(workDir: string, warn: (problem: string) => void = () => {}): SkillInfo[] {
  const root = path.join(workDir, SKILLS_DIR);
  const entries = fs.existsSync(root) ? fs.readdirSync(root, { withFileTypes: true }) : [];
  return entries.flatMap((e) => {
    const file = e.isDirectory() ? path.join(root, e.name, "SKILL.md") : e.name.endsWith(".md") ? path.join(root, e.name) : null;
    if (!file || !fs.existsSync(file)) return [];
    try {
      const text = readInside(root, file, path.relative(workDir, file));
      return [{ name: e.isDirectory() ? e.name : e.name.slice(0, -3), description: skillDescription(text) }];
    } catch (err) {
      warn(`skill not listed: ${(err as Error).message}`);
      return [];
    }
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

/** `skills/NAME.md` or `skills/NAME/SKILL.md` in the work directory, as written there. */
function skillFile(workDir: string, name: string): string | null {
  const candidates = [path.join(workDir, SKILLS_DIR, `${name}.md`), path.join(workDir, SKILLS_DIR, name, "SKILL.md")];
  return candidates.find((c) => fs.existsSync(c)) ?? null;
}

/**
 * A skill's text: opened, then checked on what was opened (inside the skills folder, and nothing
 * read_file is denied or the sandbox hides). The skill tool's own decision let the call run, so
 * an ask of read_file's rules does not stop it; a deny does.
 */
function readSkill(ctx: ToolContext, file: string): string {
  const shown = path.relative(ctx.workDir, file);
  return readInside(path.join(ctx.workDir, SKILLS_DIR), file, shown, (real) => {
    ctx.guard.check("read_file", file, "mode");
    ctx.guard.checkOpened("read_file", shown, file, real, "mode");
  });
}

export const skill = defineTool({
  name: "skill",
  description: "Load a skill's instructions by name from the work directory's skills folder.",
  tier: "read",
  input: z.object({ name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "name may hold letters, digits, '.', '_' and '-' only") }),
  async run(args, ctx) {
    const file = skillFile(ctx.workDir, args.name);
    if (!file) return { ok: false, output: `no skill named ${args.name} in ${SKILLS_DIR}/` };
    return { ok: true, output: readSkill(ctx, file) };
  },
});
