import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { answerable, chromiumForFile, signedIn } from "./support/browser.js";
import { CLIENT_TOKEN, Cluster, Events } from "./support/cluster.js";

let cluster: Cluster | undefined;
const chromium = chromiumForFile(async () => {
  await cluster?.stop();
  cluster = undefined;
});

const RULES = `{"shell_exec": {"*": "ask", "curl *": "deny"}}`;

/** A cluster whose work folder has build/ and dist/, a session that asks for `command`, and the console watching it. */
async function asking(command: string) {
  cluster = await Cluster.start({ rules: RULES, files: { "build/a.o": "a", "dist/app.js": "app" } });
  const client = cluster.client();
  const info = await client.session.create.mutate({
    workerId: "w1",
    scenario: cluster.scenario("s", [
      { text: "Running.", toolCalls: [{ tool: "shell_exec", args: { command } }] },
      { text: "The model received: {{lastResult}}" },
    ]),
  });
  const events = new Events(client, { sessionId: info.id });
  const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  const card = page.locator('article[data-tool="shell_exec"]');
  await card.waitFor();
  return { c: cluster, client, id: info.id, events, page, card };
}

/** Opens the card's edit field by its key and types the edited command in it. */
async function edit(page: Page, card: ReturnType<Page["locator"]>, command: string) {
  await answerable(card);
  await card.focus();
  await page.keyboard.press("e");
  const field = page.getByLabel("The command, as it should run");
  await expect.poll(() => page.evaluate("document.activeElement?.tagName")).toBe("TEXTAREA");
  await field.fill(command);
}

const diffLines = (card: ReturnType<Page["locator"]>) =>
  card
    .getByTestId("edit-diff")
    .locator("span")
    .allInnerTexts()
    .then((l) => l.map((x) => x.trim()));

describe("the browser console's edit of a held call", () => {
  it("an edit that narrows: the diff against the original, the gate's reason, then only dist is removed; the transcript shows what ran", async () => {
    const s = await asking("rm -rf build dist");
    await edit(s.page, s.card, "rm -rf dist");
    await expect.poll(() => diffLines(s.card)).toEqual(["- rm -rf build dist", "+ rm -rf dist"]);
    await s.card.getByRole("button", { name: "Check the edited call" }).click();
    await expect.poll(() => s.card.getByTestId("edit-check").textContent()).toMatch(/Why the edited call asks.*shell_exec/);
    await s.card.getByRole("button", { name: "Approve edited, always (rm *)" }).waitFor();
    await s.card.getByRole("button", { name: "Approve edited, once" }).click();
    await s.events.next("turn_ended");
    expect(fs.existsSync(path.join(s.c.workDir, "dist"))).toBe(false);
    expect(fs.existsSync(path.join(s.c.workDir, "build/a.o"))).toBe(true);
    expect(s.events.of("tool_call_started").map((e) => e.arguments)).toEqual([JSON.stringify({ command: "rm -rf dist" })]);
    await s.page.goto(`http://127.0.0.1:${s.c.port}/#/sessions/${s.id}`);
    const entry = s.page.locator(".transcript, main").getByText("edited; the model asked for");
    await entry.waitFor();
    expect(await s.page.locator("main").textContent()).toContain("rm -rf dist");
    expect(await s.page.locator("main").textContent()).toContain("The model received: The user changed this shell_exec call before approving it");
  });

  it("an edit the gate denies is refused with the reason and the call stays pending; a critical edit needs its confirmation", async () => {
    const s = await asking("ls dist");
    await edit(s.page, s.card, "curl http://127.0.0.1:9/x");
    await s.card.getByRole("button", { name: "Check the edited call" }).click();
    await expect.poll(() => s.card.getByTestId("edit-problem").textContent()).toMatch(/^Not approved: the edited shell_exec call is denied: .*curl/);
    expect(s.events.of("tool_approval_resolved")).toEqual([]);

    await s.page.getByLabel("The command, as it should run").fill("dd if=/dev/zero of=/dev/null count=1");
    await s.card.getByRole("button", { name: "Check the edited call" }).click();
    await expect.poll(() => s.card.getByTestId("edit-check").textContent()).toContain("Critical patterndd writes to a device");
    const once = s.card.getByRole("button", { name: "Approve edited, once" });
    expect(await once.isDisabled()).toBe(true);
    expect(await s.card.getByRole("button", { name: /for this session|always/ }).count()).toBe(0);
    await s.card.getByLabel("Run it although it matches a critical pattern").check();
    await once.click();
    expect(await s.events.next("tool_result")).toMatchObject({ outcome: "ok" });
    expect(s.events.of("tool_call_started").map((e) => e.arguments)).toEqual([JSON.stringify({ command: "dd if=/dev/zero of=/dev/null count=1" })]);
  });

  it("an edit raced against another client's plain approval: exactly one applies; the loser hears of it", async () => {
    const s = await asking("rm -rf build dist");
    const ask = await s.events.next("tool_approval_required");
    await edit(s.page, s.card, "rm -rf dist");
    await s.card.getByRole("button", { name: "Check the edited call" }).click();
    const once = s.card.getByRole("button", { name: "Approve edited, once" });
    const button = (await once.elementHandle())!;
    // Both answers leave together: the button is clicked in the page at once, not when Playwright finds it still there.
    const [plain] = await Promise.allSettled([
      s.client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId, digest: ask.digest }),
      button.evaluate((b: unknown) => (b as { click(): void }).click()),
    ]);
    await s.events.next("turn_ended");
    expect(s.events.of("tool_approval_resolved")).toHaveLength(1);
    expect(s.events.of("tool_call_started")).toHaveLength(1);
    const editWon = s.events.of("tool_approval_resolved")[0]!.editedArguments !== undefined;
    expect(fs.existsSync(path.join(s.c.workDir, "build"))).toBe(editWon);
    if (editWon) expect(plain).toMatchObject({ status: "rejected", reason: { data: { code: "CONFLICT" } } });
    else {
      expect(plain).toMatchObject({ status: "fulfilled", value: { applied: true } });
      await expect.poll(() => s.page.getByRole("alert").textContent()).toMatch(/already answered|not pending/);
    }
  });
});
