// appendRule from several processes at once, each the built package in a node process of its own,
// as a server and the CLI append to one rules file.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseRulesOrThrow } from "../src/index.js";
import { HOME } from "./helpers.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-append-processes-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("appendRule on disk", () => {
  it("holds all rules when several processes append at once", async () => {
    const file = path.join(dir, "multi.jsonc");
    fs.writeFileSync(file, `{"*": "ask"}`);
    const entry = path.resolve(import.meta.dirname, "../dist/node/index.js");
    const appendTen = `for (let i = 0; i < 10; i++) await m.appendRule(process.argv[1], { tool: "t" + process.argv[2], pattern: "p" + i });`;
    const script = `import("${entry}").then(async (m) => { ${appendTen} })`;
    await Promise.all(
      [0, 1, 2, 3, 4].map(
        (n) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, ["-e", script, file, String(n)], { stdio: "inherit" });
            child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
          }),
      ),
    );
    expect(parseRulesOrThrow(fs.readFileSync(file, "utf8"), { file: "p", home: HOME }).filter((r) => r.origin === "approval")).toHaveLength(50);
  });
});
