import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";

const CHROMIUM = "/usr/bin/chromium";
const WEB = path.resolve(import.meta.dirname, "../../apps/web");

function newest(dir: string): number {
  let max = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return max;
}

/** Waits until an approval card takes answers: the console holds them back for a moment after the cards move. */
export const answerable = (card: Locator): Promise<void> => card.and(card.page().locator("[data-ready]")).waitFor();

/** Fails early, with what to do, when the console bundle is missing or older than its sources. */
export function assertConsoleBuilt(): void {
  const page = path.join(WEB, "dist/index.html");
  if (!fs.existsSync(page) || fs.statSync(page).mtimeMs < newest(path.join(WEB, "src"))) {
    throw new Error("the web console bundle is missing or stale: run node apps/web/build.mjs (scripts/bootstrap does)");
  }
}

/** One Chromium process for a test file; each context in it is a separate browser profile. */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  assertConsoleBuilt();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "gh-chromium-"));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A fresh profile on the console, signed in with the token. */
export async function signedIn(
  browser: Browser,
  port: number,
  token: string,
  opts: { viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1200, height: 900 } });
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.getByLabel("Client token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("status").filter({ hasText: "connected" }).waitFor();
  return { context, page };
}

/**
 * One Chromium for the calling test file (launched before its tests, closed after them); after
 * each test its contexts close and then `cleanup` runs.
 */
export function chromiumForFile(cleanup: () => Promise<void>): { browser(): Browser } {
  let launched: Awaited<ReturnType<typeof launchChromium>> | undefined;
  beforeAll(async () => {
    launched = await launchChromium();
  }, 30_000);
  afterAll(async () => launched?.close());
  afterEach(async () => {
    for (const c of launched?.browser.contexts() ?? []) await c.close();
    await cleanup();
  });
  return {
    browser: () => {
      if (!launched) throw new Error("Chromium has not started");
      return launched.browser;
    },
  };
}
