import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { evaluate, loadShellParser } from "@gatehouse/policy";
import { describe, expect, it } from "vitest";
import { ANY_FLAG } from "./corpus/any-flag.js";

await loadShellParser();

// Real bash: npm, given a directory outside the work directory through an option's separate value,
// writes there (its debug log lands in the logs directory, by default inside the cache).
const NPM_WRITES: [string, string][] = [
  ["npm ls --logs-dir ~/npm-logs", "npm-logs"],
  ["npm ls --cache ~/npm-cache", "npm-cache"],
];

describe("bypass suite: real bash writes where an unknown option's value points", () => {
  const npm = spawnSync("bash", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim();
  it.skipIf(!npm).each(NPM_WRITES)(
    "%j writes outside the work directory, and asks",
    (command, made) => {
      const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-anyflag-")));
      try {
        const [home, project] = [path.join(scratch, "home"), path.join(scratch, "project")];
        fs.mkdirSync(home);
        fs.mkdirSync(project);
        spawnSync("bash", ["-c", command], { cwd: project, env: { PATH: process.env.PATH, HOME: home }, timeout: 60_000 });
        expect(fs.readdirSync(home)).toContain(made);
        const d = evaluate({ tool: "shell_exec", args: { command } }, { layers: ANY_FLAG, cwd: project, home });
        expect(d.action, d.reason).toBe("ask");
      } finally {
        fs.rmSync(scratch, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
