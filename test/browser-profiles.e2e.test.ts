import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveRealPath } from "@gatehouse/fs-guard";
import { DEFAULT_RULES_TEXT, evaluate, loadShellParser, parseRulesOrThrow, Ruleset } from "@gatehouse/policy";
import { chromium } from "playwright-core";
import { afterAll, expect, it } from "vitest";
import { assertConsoleBuilt } from "./support/browser.js";
import { ServerProcess } from "./support/server-process.js";

await loadShellParser();

/**
 * A person signs in to the browser console with a Chromium whose profile lies where Ubuntu's snap
 * keeps it; Chromium writes the tab's sessionStorage, the client token in it, into the profile.
 * The default rules must keep that file from every tool and command, as they keep ~/.config/chromium.
 */
const TOKEN = "browser-profile-client-token-0001";
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-profiles-")));
const home = path.join(root, "home");
const work = path.join(home, "project");
fs.mkdirSync(work, { recursive: true });
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The files under `dir` whose bytes hold `text`, in one byte per character or in UTF-16. */
function holding(dir: string, text: string): string[] {
  const needles = [Buffer.from(text, "latin1"), Buffer.from(text, "utf16le")];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => needles.some((n) => fs.readFileSync(f).includes(n)));
}

async function signInAndClose(port: number, profile: string): Promise<void> {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.getByLabel("Client token").fill(TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("status").filter({ hasText: "connected" }).waitFor();
  } finally {
    await context.close();
  }
}

it("the console's token that a snap Chromium keeps in its profile is denied to read_file and cat by the default rules", async () => {
  assertConsoleBuilt();
  server = await ServerProcess.start({ clientTokens: [{ name: "ada", token: TOKEN, role: "approver", workers: ["*"] }] });
  const profile = path.join(home, "snap", "chromium", "common", "chromium");
  await signInAndClose(Number(new URL(server.url).port), profile);

  const files = holding(profile, TOKEN);
  expect(files.length, "Chromium keeps the signed-in tab's token on disk").toBeGreaterThan(0);
  const layers = { static: new Ruleset(parseRulesOrThrow(DEFAULT_RULES_TEXT, { file: "permissions.jsonc", home })) };
  for (const file of files) {
    const ctx = { layers, cwd: work, home, resolveRealPath };
    expect(evaluate({ tool: "read_file", args: { path: file } }, ctx).action, file).toBe("deny");
    expect(evaluate({ tool: "shell_exec", args: { command: `cat '${file}'` } }, ctx).action, file).toBe("deny");
  }
}, 60_000);
