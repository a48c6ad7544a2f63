import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./support/cli-in-process.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const DOCS = [
  "README.md",
  ...["operations", "terminal", "web", "permissions", "telegram", "models", "mcp", "agents"].map((f) => `docs/${f}.md`),
  "examples/permissions.jsonc",
];
const SUBCOMMANDS = new Set(["server", "worker", "connect", "run", "audit", "token", "telegram", "permissions", "eval", "explain", "lint"]);

/** Every `./gatehouse ...` command line of a document: its subcommand and the flags it gives. */
function commandsOf(file: string): { line: number; command: string; flags: string[] }[] {
  return fs
    .readFileSync(path.join(ROOT, file), "utf8")
    .split("\n")
    .flatMap((text, i) =>
      [...text.matchAll(/\.\/gatehouse((?: [^`|\n]*)?)/g)].map((m) => {
        const words = m[1]!.trim().split(/\s+/);
        const sub: string[] = [];
        for (const w of words) if (SUBCOMMANDS.has(w) && sub.length === words.indexOf(w)) sub.push(w);
        return { line: i + 1, command: sub.join(" "), flags: [...m[0].matchAll(/--[a-z][a-z-]*/g)].map((f) => f[0]) };
      }),
    );
}

/** What `gatehouse COMMAND --help` prints, for each command. */
async function helpOf(commands: string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const command of new Set(commands)) texts.set(command, (await runCli([...command.split(" ").filter(Boolean), "--help"])).stdout);
  return texts;
}

describe("the commands of the README, the operator's guides and the example rules, as written", () => {
  it.each(DOCS)("%s spells the command one way, ./gatehouse, as a fresh clone runs it", (file) => {
    const bare = fs
      .readFileSync(path.join(ROOT, file), "utf8")
      .split("\n")
      .map((text, i) => ({ line: i + 1, text }))
      .filter(({ text }) => /(^|[\s`(=])gatehouse (server|worker|connect|run|audit|token|telegram|permissions)\b/.test(text));
    expect(bare).toEqual([]);
  });

  it.each(DOCS)("%s gives only commands and flags the CLI has", { timeout: 60_000 }, async (file) => {
    const commands = commandsOf(file);
    expect(commands.length).toBeGreaterThan(0);
    const help = await helpOf(commands.map((c) => c.command));
    const unknown = commands.flatMap((c) =>
      c.flags.filter((f) => f !== "--help" && !help.get(c.command)!.includes(f)).map((f) => `${file}:${c.line}: ${c.command} ${f}`),
    );
    expect(unknown).toEqual([]);
  });
});
