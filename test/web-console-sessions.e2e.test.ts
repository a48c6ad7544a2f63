import { describe, expect, it } from "vitest";
import { chromiumForFile, signedIn } from "./support/browser.js";
import { CLIENT_TOKEN, Cluster, Events } from "./support/cluster.js";
import { ServerProcess } from "./support/server-process.js";

let cluster: Cluster | undefined;
const chromium = chromiumForFile(async () => {
  await cluster?.stop();
  cluster = undefined;
});

describe("the browser console's session list and sign-in page", () => {
  it("shows each session's first prompt as text, its age and what waits; a card names its rule once", async () => {
    cluster = await Cluster.start({ rules: `{"*": "allow", "shell_exec": "ask"}` });
    const client = cluster.client();
    const asking = await client.session.create.mutate({
      workerId: "w1",
      scenario: cluster.scenario("ask", [{ toolCalls: [{ tool: "shell_exec", args: { command: "echo hi" } }] }, { text: "done" }]),
    });
    const quiet = await client.session.create.mutate({ workerId: "w1" });
    const events = new Events(client, { sessionId: asking.id });
    await client.agent.prompt.mutate({ sessionId: asking.id, text: "<b>fix</b> the login\nbug, then run the tests" });
    await events.next("tool_approval_required", undefined, 20_000);

    const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    await page.getByRole("link", { name: "Sessions" }).click();
    const row = page.locator(`[data-session="${asking.id}"]`);
    await row.getByText("1 waiting").waitFor({ timeout: 10_000 });
    const prompt = await row.getByTestId("first-prompt").textContent();
    // Shown as text on one line: the markup is not markup, the line break is marked, not followed.
    expect(prompt).toBe("<b>fix</b> the login\\nbug, then run the tests");
    expect(await row.locator("b").count()).toBe(0);
    expect(await row.locator("time").textContent()).toBe("just now");
    const other = page.locator(`[data-session="${quiet.id}"]`);
    expect(await other.getByTestId("first-prompt").textContent()).toBe("no prompt yet");
    expect(await other.getByText("none waiting").count()).toBe(1);

    await page
      .getByRole("link", { name: /Approvals|Inbox/ })
      .first()
      .click();
    const why = page.locator('article[data-tool="shell_exec"] .why');
    await why.waitFor();
    const terms = await why.locator("dt").allTextContents();
    expect(terms).toContain("Why it asks");
    expect(terms).not.toContain("Rule");
    expect(await why.locator("dd").first().textContent()).toMatch(/rule shell_exec "\*": ask at .*permissions\.jsonc:\d+:\d+/);
  });

  it("over TLS, the server prints its certificate's fingerprint and the sign-in page says how to compare it", async () => {
    const tls = await ServerProcess.start({ tls: "self-signed", clientTokens: [{ token: CLIENT_TOKEN, name: "ada", role: "admin" }] });
    try {
      expect(tls.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      const printed = await tls.log.next(/the certificate's SHA-256 fingerprint/);
      expect(printed).toContain(`the certificate's SHA-256 fingerprint, to compare with the browser's: ${tls.fingerprint}`);
      const context = await chromium.browser().newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      await page.goto(tls.url.replace(/^wss:/, "https:") + "/");
      const hint = await page.getByTestId("certificate-hint").textContent();
      expect(hint).toContain("compare its SHA-256 fingerprint with the one gatehouse server printed when it started");
      await context.close();
    } finally {
      await tls.stop();
    }
  });

  it("over plain http, the sign-in page has no certificate to check", async () => {
    const plain = await ServerProcess.start({ clientTokens: [{ token: CLIENT_TOKEN, name: "ada", role: "admin" }] });
    try {
      const context = await chromium.browser().newContext();
      const page = await context.newPage();
      await page.goto(plain.url.replace(/^ws:/, "http:") + "/");
      await page.getByLabel("Client token").waitFor();
      expect(await page.getByTestId("certificate-hint").count()).toBe(0);
      await context.close();
    } finally {
      await plain.stop();
    }
  });

  it("a worker's page shows an MCP server that cannot start, with its own error", async () => {
    cluster = await Cluster.start({ mcpServers: () => ({ broken: { command: "/nonexistent/broken-mcp", args: [] } }) });
    const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    await page.goto(`http://127.0.0.1:${cluster.port}/#/workers/w1`);
    const servers = page.getByTestId("mcp-servers");
    await servers.waitFor({ timeout: 10_000 });
    const text = await servers.textContent();
    expect(text).toContain("broken");
    expect(text).toContain("not running");
    expect(text).toMatch(/could not start: [^\n]*\nits last words on stderr:\n.*\/nonexistent\/broken-mcp'?: No such file or directory/);
  });
});
