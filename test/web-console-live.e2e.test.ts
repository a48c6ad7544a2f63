import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { answerable, chromiumForFile, signedIn } from "./support/browser.js";
import { CLIENT_TOKEN, Cluster, Events } from "./support/cluster.js";
import { Proxy } from "./support/proxy.js";

let cluster: Cluster | undefined;
let proxy: Proxy | undefined;
const chromium = chromiumForFile(async () => {
  await proxy?.close();
  await cluster?.stop();
  cluster = proxy = undefined;
});

const ASK_WRITES = `{"*": "allow", "write_file": "ask", "shell_exec": "ask", "task": "allow"}`;
const VIEWER_TOKEN = "viewer-token-for-tests-0001";
const card = (page: Page, tool: string) => page.locator(`article[data-tool="${tool}"]`);
const link = (page: Page) => page.getByTestId("link");

describe("the browser console, live", () => {
  it("shows a cut connection, and on reconnect the approval raised meanwhile", async () => {
    cluster = await Cluster.start({ rules: ASK_WRITES });
    proxy = await Proxy.start(cluster.port);
    const client = cluster.client();
    const info = await client.session.create.mutate({
      workerId: "w1",
      scenario: cluster.scenario("s", [{ toolCalls: [{ tool: "write_file", args: { path: "late.txt", content: "late\n" } }] }, { text: "done" }]),
    });
    const events = new Events(client, { sessionId: info.id });
    const port = Number(new URL(proxy.url).port);
    const { page } = await signedIn(chromium.browser(), port, CLIENT_TOKEN);

    proxy.hold();
    proxy.cut();
    await expect.poll(() => link(page).textContent()).toBe("connection lost: reconnecting…");
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    await events.next("tool_approval_required");
    expect(await page.locator("article.card").count()).toBe(0);

    proxy.release();
    await card(page, "write_file").waitFor({ timeout: 10_000 });
    expect(await link(page).textContent()).toBe("connected");
    await answerable(card(page, "write_file"));
    await page.keyboard.press("y");
    await events.next("turn_ended");
    expect(fs.readFileSync(path.join(cluster.workDir, "late.txt"), "utf8")).toBe("late\n");
  });

  it("answers a subagent's approval, shown under its parent with the agent's name", async () => {
    cluster = await Cluster.start({ rules: ASK_WRITES });
    const client = cluster.client();
    const scenario = cluster.scenario(
      "parent",
      [
        { text: "Delegating.", toolCalls: [{ tool: "task", args: { agent: "general", prompt: "write the notes" } }] },
        { text: "The subagent said: {{lastResult}}" },
      ],
      { general: [{ toolCalls: [{ tool: "write_file", args: { path: "notes.md", content: "from the child\n" } }] }, { text: "Wrote notes.md." }] },
    );
    const info = await client.session.create.mutate({ workerId: "w1", scenario });
    const events = new Events(client, { sessionId: info.id });
    const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });

    const write = card(page, "write_file");
    await write.waitFor();
    expect(await write.locator(".tool").textContent()).toBe("general › write_file");
    const child = (await events.next("session_created", (e) => e.session.parentId === info.id)).session;
    expect(await write.getAttribute("data-approval")).toBe((await events.next("tool_approval_required")).approvalId);

    await page.getByRole("link", { name: "Sessions" }).click();
    await page.locator(`.tree .tree.nested [data-session="${child.id}"]`).waitFor();
    await page.locator(`[data-session="${info.id}"]`).click();
    const inSession = card(page, "write_file");
    await inSession.waitFor();
    await inSession.getByRole("button", { name: /Approve once/ }).click();
    await events.next("turn_ended", (e) => e.sessionId === info.id, 10_000);
    expect(fs.readFileSync(path.join(cluster.workDir, "notes.md"), "utf8")).toBe("from the child\n");
    await expect.poll(() => page.getByRole("log", { name: "Transcript" }).textContent()).toContain("The subagent said: Wrote notes.md.");
    expect(events.of("tool_approval_resolved")).toMatchObject([{ outcome: "approved", sessionId: child.id, by: "ada" }]);
  });

  it("starts a session, prompts it, changes its mode and aborts its turn from the browser", async () => {
    cluster = await Cluster.start({ rules: ASK_WRITES });
    const scenario = cluster.scenario("s", [
      { text: "Running it.", toolCalls: [{ tool: "shell_exec", args: { command: "echo hi" } }] },
      { text: "not reached" },
    ]);
    const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    await page.getByRole("link", { name: "Sessions" }).click();
    await page.getByLabel("Scenario", { exact: true }).fill(scenario);
    await page.getByLabel("Mode", { exact: true }).selectOption("strict");
    await page.getByRole("button", { name: "Start session" }).click();
    await page.getByLabel("Prompt").waitFor();
    const id = decodeURIComponent(page.url().split("#/sessions/")[1]!);
    const events = new Events(cluster.client(), { sessionId: id, lastEventId: "0" });
    expect((await cluster.client().session.get.query({ sessionId: id })).session.mode).toBe("strict");

    await page.getByLabel("Mode", { exact: true }).selectOption("default");
    await events.next("mode_changed", (e) => e.mode === "default");
    await page.getByLabel("Prompt").fill("run echo");
    await page.keyboard.press("Enter");
    await card(page, "shell_exec").waitFor();
    expect(await page.getByRole("log", { name: "Transcript" }).textContent()).toContain("run echo");
    await page.getByRole("button", { name: "Abort turn" }).click();
    await events.next("turn_ended", (e) => e.reason === "aborted");
    expect(events.of("tool_approval_resolved")).toMatchObject([{ outcome: "cancelled" }]);
    await expect.poll(() => page.locator("article.card").count()).toBe(0);
  });

  it("a viewer watches without answer buttons; the console fits a phone and 400% zoom", async () => {
    cluster = await Cluster.start({
      rules: ASK_WRITES,
      config: {
        clientTokens: [
          { token: CLIENT_TOKEN, name: "ada", role: "admin" },
          { token: VIEWER_TOKEN, name: "wall", role: "viewer" },
        ],
      },
    });
    const client = cluster.client();
    const info = await client.session.create.mutate({
      workerId: "w1",
      scenario: cluster.scenario("s", [{ toolCalls: [{ tool: "shell_exec", args: { command: "ls -la" } }] }, { text: "done" }]),
    });
    const viewer = await signedIn(chromium.browser(), cluster.port, VIEWER_TOKEN, { viewport: { width: 390, height: 844 } });
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    const shell = card(viewer.page, "shell_exec");
    await shell.waitFor();
    expect(await shell.textContent()).toContain("may watch this approval but not answer it");
    expect(await shell.getByRole("button").count()).toBe(0);
    await viewer.page.keyboard.press("y");
    await viewer.page.getByRole("link", { name: "Workers" }).click();
    await viewer.page.locator('[data-worker="w1"]').click();
    await viewer.page.getByText("Only an admin token may read rules files").waitFor();

    const admin = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN, { viewport: { width: 320, height: 256 } });
    const overflow = `document.documentElement.scrollWidth - document.documentElement.clientWidth`;
    for (const page of [viewer.page, admin.page]) {
      await page.goto(`${new URL(page.url()).origin}/#/inbox`);
      await card(page, "shell_exec").waitFor();
      expect(await page.evaluate(overflow)).toBeLessThanOrEqual(0);
    }
    await card(admin.page, "shell_exec")
      .getByRole("button", { name: /Approve once/ })
      .click();
    await expect.poll(() => viewer.page.locator("article.card").count()).toBe(0);
    await admin.page.goto(`${new URL(admin.page.url()).origin}/#/workers/w1`);
    await admin.page.getByText("No lint warnings.").waitFor();
    expect(await admin.page.evaluate(overflow)).toBeLessThanOrEqual(0);
  });
});
