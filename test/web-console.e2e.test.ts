import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { answerable, chromiumForFile, signedIn } from "./support/browser.js";
import { CLIENT_TOKEN, Cluster, Events } from "./support/cluster.js";

let cluster: Cluster | undefined;
const chromium = chromiumForFile(async () => {
  await cluster?.stop();
  cluster = undefined;
});

const ASK_WRITES = `{"*": "allow", "write_file": "ask", "shell_exec": "ask"}`;

let scenarios = 0;

/** A scripted session started from the node client, prompted once the browser is watching. */
async function session(c: Cluster, steps: unknown[]) {
  const client = c.client();
  const info = await client.session.create.mutate({ workerId: "w1", scenario: c.scenario(`s${scenarios++}`, steps) });
  const events = new Events(client, { sessionId: info.id });
  return { client, id: info.id, events, prompt: () => client.agent.prompt.mutate({ sessionId: info.id, text: "go" }) };
}

const card = (page: Page, tool: string) => page.locator(`article[data-tool="${tool}"]`);

/** Two sessions' writes asking, a.txt's card above b.txt's, both taking answers. */
async function twoCards() {
  cluster = await Cluster.start({ rules: ASK_WRITES });
  const write = (file: string) => [{ toolCalls: [{ tool: "write_file", args: { path: file, content: file } }] }, { text: "done" }];
  const a = await session(cluster, write("a.txt"));
  const b = await session(cluster, write("b.txt"));
  const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
  await a.prompt();
  await answerable(card(page, "write_file").filter({ hasText: "a.txt" }));
  await b.prompt();
  const second = card(page, "write_file").filter({ hasText: "b.txt" });
  await answerable(second);
  return { c: cluster, a, b, page, second };
}

/** One batch of three writes asking, first.txt's card on top and taking answers. */
async function threeWrites() {
  const c = (cluster = await Cluster.start({ rules: ASK_WRITES }));
  const writes = ["first.txt", "second.txt", "third.txt"].map((p) => ({ tool: "write_file", args: { path: p, content: p } }));
  const s = await session(c, [{ toolCalls: writes }, { text: "done" }]);
  const { page } = await signedIn(chromium.browser(), c.port, CLIENT_TOKEN);
  await s.prompt();
  await answerable(card(page, "write_file").filter({ hasText: "first.txt" }));
  return { c, s, page };
}

describe("the browser console", () => {
  it("is served with its own content policy, signs in with a token kept out of the address, and refuses a wrong one", async () => {
    cluster = await Cluster.start();
    const res = await fetch(`http://127.0.0.1:${cluster.port}/`);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(await res.text())![1]!;
    const asset = await fetch(`http://127.0.0.1:${cluster.port}${script}`);
    expect([asset.headers.get("content-type"), asset.headers.get("cache-control")]).toEqual([
      "text/javascript; charset=utf-8",
      "public, max-age=31536000, immutable",
    ]);
    expect((await fetch(`http://127.0.0.1:${cluster.port}/assets/..%2f..%2fpackage.json`)).status).toBe(404);

    const context = await chromium.browser().newContext();
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${cluster.port}/`);
    await page.getByLabel("Client token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("the server refused this token");

    await page.getByLabel("Client token").fill(CLIENT_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("status").filter({ hasText: "connected" }).waitFor();
    expect(page.url()).not.toContain(CLIENT_TOKEN);
    expect(await page.evaluate('[sessionStorage.getItem("gatehouse.token"), localStorage.length, document.cookie]')).toEqual([CLIENT_TOKEN, 0, ""]);
    await page.reload();
    await page.getByRole("status").filter({ hasText: "connected" }).waitFor();
    await page.getByRole("link", { name: "Workers" }).click();
    await page.locator('[data-worker="w1"]').getByText("online").waitFor();
    const [worker] = await cluster.client().workers.list.query();
    expect(worker!.sandbox).not.toBeNull();
    const sandbox = worker!.sandbox!.active ? `sandboxed, ${worker!.sandbox!.network ? "with network" : "no network"}` : "not sandboxed";
    expect(await page.locator('[data-worker="w1"] [data-testid="sandbox"]').textContent()).toMatch(new RegExp(`^${sandbox}`));
    await page.locator('[data-worker="w1"]').click();
    // The worker's page replaces the list: wait for it rather than read the list's line.
    await page
      .getByTestId("sandbox")
      .filter({ hasText: `mode ${worker!.sandbox!.mode}` })
      .waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Client token").waitFor();
    expect(await page.evaluate('sessionStorage.getItem("gatehouse.token")')).toBeNull();
  });

  it("answers live approvals each way: once by key, for the session, deny with feedback, deny hard", async () => {
    cluster = await Cluster.start({ rules: ASK_WRITES });
    const s = await session(cluster, [
      { toolCalls: [{ tool: "write_file", args: { path: "new.txt", content: "hello\n" } }] },
      { toolCalls: [{ tool: "shell_exec", args: { command: "echo one" } }] },
      { toolCalls: [{ tool: "shell_exec", args: { command: "echo one" } }] },
      { toolCalls: [{ tool: "write_file", args: { path: "other.txt", content: "x" } }] },
      {
        text: "The model was told: {{lastResult}}",
        toolCalls: [
          { tool: "write_file", args: { path: "third.txt", content: "y" } },
          { tool: "write_file", args: { path: "fourth.txt", content: "z" } },
        ],
      },
      { text: "not reached" },
    ]);
    const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    await s.prompt();

    const write = card(page, "write_file");
    await write.waitFor();
    await expect
      .poll(() =>
        write
          .locator(".d-add")
          .allInnerTexts()
          .then((l) => l.map((x) => x.trim())),
      )
      .toEqual(["+hello"]);
    expect(await write.locator(".tier").textContent()).toBe("write");
    // The rule is named once, in why it asks, with its layer and place in the file.
    expect(await write.textContent()).toMatch(/Why it asksstatic rule write_file "\*": ask at \S+permissions\.jsonc:1:\d+/);
    expect(await write.textContent()).not.toContain("→ ask");
    await answerable(write);
    await page.keyboard.press("y");
    await s.events.next("tool_result", (e) => e.toolName === "write_file");
    expect(fs.readFileSync(path.join(cluster.workDir, "new.txt"), "utf8")).toBe("hello\n");

    const shell = card(page, "shell_exec");
    await shell.waitFor();
    expect(await shell.locator(".cwd").textContent()).toContain(cluster.workDir);
    expect(await shell.locator("pre").textContent()).toContain("echo one");
    await shell.getByRole("button", { name: /For this session/ }).click();

    const other = write.filter({ hasText: "other.txt" });
    await other.waitFor();
    await other.getByRole("button", { name: /Deny…/ }).click();
    await page.getByLabel("Feedback for the model (optional)").fill("write notes.md instead");
    await page.keyboard.press("Enter");

    const third = write.filter({ hasText: "third.txt" });
    await third.waitFor();
    await expect.poll(() => third.locator(".why").textContent()).toContain("call 1 of 2");
    await answerable(third);
    await page.keyboard.press("N");
    await s.events.next("turn_ended");

    const resolved = s.events.of("tool_approval_resolved").map((e) => [e.outcome, e.scope, e.feedback, e.by]);
    expect(resolved).toEqual([
      ["approved", "once", null, "ada"],
      ["approved", "session", null, "ada"],
      ["denied", null, "write notes.md instead", "ada"],
      ["denied", null, null, "ada"],
      ["cancelled", null, null, null],
    ]);
    expect(s.events.of("tool_approval_required").map((e) => e.toolName)).toEqual(["write_file", "shell_exec", "write_file", "write_file", "write_file"]);
    expect(s.events.of("tool_call_started").filter((e) => e.toolName === "shell_exec")).toHaveLength(2);
    expect(
      s.events
        .of("assistant_message")
        .map((e) => e.message.role === "assistant" && e.message.text)
        .join(" "),
    ).toContain("write notes.md instead");
    expect(s.events.of("turn_ended").map((e) => e.reason)).toEqual(["rejected"]);
    expect(fs.existsSync(path.join(cluster.workDir, "third.txt"))).toBe(false);
    await expect.poll(() => page.locator("article.card").count()).toBe(0);
  });

  it("a key typed the moment a card is drawn reaches that card, and waits out the pause before it answers anything", async () => {
    cluster = await Cluster.start({ rules: ASK_WRITES });
    const s = await session(cluster, [{ toolCalls: [{ tool: "write_file", args: { path: "quick.txt", content: "fast\n" } }] }, { text: "done" }]);
    const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    // Typed from the first moment the card is in the page, before any later effect of that render.
    await page.evaluate(`new MutationObserver((_, seen) => {
      if (!document.querySelector('article[data-tool="write_file"]')) return;
      seen.disconnect();
      document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "y", bubbles: true, cancelable: true }));
    }).observe(document.body, { childList: true, subtree: true })`);
    await s.prompt();
    await s.events.next("tool_approval_required");
    await new Promise((r) => setTimeout(r, 1000));
    expect(s.events.of("tool_approval_resolved")).toEqual([]);
    await answerable(card(page, "write_file"));
    await page.keyboard.press("y");
    expect(await s.events.next("tool_approval_resolved")).toMatchObject({ outcome: "approved", scope: "once" });
    await s.events.next("turn_ended");
    expect(fs.readFileSync(path.join(cluster.workDir, "quick.txt"), "utf8")).toBe("fast\n");
  });

  it("a key pressed twice or a double click answers the card it was meant for, never the next one", async () => {
    const { c, s, page } = await threeWrites();
    // The second press and the second click come the moment the card before has gone.
    await page.evaluate(`new MutationObserver((_, seen) => {
      const top = document.querySelector("article[data-tool]");
      if (!top || !top.textContent.includes("second.txt")) return;
      seen.disconnect();
      document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "y", bubbles: true, cancelable: true }));
      top.querySelector(".answers button.ok").click();
    }).observe(document.body, { childList: true, subtree: true })`);
    await page.keyboard.press("y");
    expect(await s.events.next("tool_approval_resolved")).toMatchObject({ outcome: "approved" });
    await new Promise((r) => setTimeout(r, 1000));
    expect(s.events.of("tool_approval_resolved")).toHaveLength(1);
    expect(fs.existsSync(path.join(c.workDir, "second.txt"))).toBe(false);
    const second = card(page, "write_file").filter({ hasText: "second.txt" });
    // A card added at the end moves nothing: the one answered takes its answer at once.
    await answerable(second);
    await page.keyboard.press("N");
    await s.events.next("turn_ended");
    expect(s.events.of("tool_approval_resolved").map((e) => e.outcome)).toEqual(["approved", "denied", "cancelled"]);
    expect(fs.existsSync(path.join(c.workDir, "second.txt"))).toBe(false);
  });

  it("a key held down answers one call, not each one that comes up as its pause ends", async () => {
    const { c, s, page } = await threeWrites();
    // Held for 1.5 s: the browser repeats the key every 33 ms (each a keydown with repeat set).
    const start = Date.now();
    await page.keyboard.down("y");
    while (Date.now() - start < 1500) {
      await new Promise((r) => setTimeout(r, 33));
      await page.keyboard.down("y");
    }
    await page.keyboard.up("y");
    await new Promise((r) => setTimeout(r, 500));
    expect(s.events.of("tool_approval_resolved").map((e) => e.outcome)).toEqual(["approved"]);
    expect(fs.existsSync(path.join(c.workDir, "second.txt"))).toBe(false);
  });

  it("a form's own answer waits out the pause too: Save and approve pressed as the cards move answers nothing", async () => {
    const { c, a, b, page, second } = await twoCards();
    await second.getByRole("button", { name: /Always…/ }).click();
    await second.locator("form.always").waitFor();
    // The save comes the moment another client's answer takes the card above away.
    await page.evaluate(`new MutationObserver((_, seen) => {
      const top = document.querySelector("article[data-tool]");
      if (!top || !top.textContent.includes("b.txt")) return;
      seen.disconnect();
      top.querySelector("form.always button[type=submit]").click();
      top.querySelector("form.always").requestSubmit();
    }).observe(document.body, { childList: true, subtree: true })`);
    const asked = a.events.of("tool_approval_required")[0]!;
    await a.client.tool.approve.mutate({ sessionId: a.id, approvalId: asked.approvalId });
    await new Promise((r) => setTimeout(r, 1000));
    expect(b.events.of("tool_approval_resolved")).toEqual([]);
    expect(fs.existsSync(path.join(c.workDir, "b.txt"))).toBe(false);
    await answerable(second);
    await second.getByRole("button", { name: "Save and approve" }).click();
    expect(await b.events.next("tool_approval_resolved")).toMatchObject({ outcome: "approved", scope: "always" });
  });

  it("a card the person picks takes their click at once: choosing a card starts no pause", async () => {
    const { a, b, second } = await twoCards();
    await second.getByRole("button", { name: /Approve once/ }).click();
    expect(await b.events.next("tool_approval_resolved")).toMatchObject({ outcome: "approved", scope: "once" });
    expect(a.events.of("tool_approval_resolved")).toEqual([]);
  });

  it("saves an edited pattern with always, and the rules file holds it", async () => {
    cluster = await Cluster.start({ rules: ASK_WRITES });
    const s = await session(cluster, [{ toolCalls: [{ tool: "shell_exec", args: { command: "npm run build --silent" } }] }, { text: "built" }]);
    const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    await s.prompt();
    const shell = card(page, "shell_exec");
    await answerable(shell);
    await shell.focus();
    await page.keyboard.press("a");
    const field = page.getByLabel("Pattern 1");
    await expect.poll(() => page.evaluate("document.activeElement?.id")).toMatch(/-p0$/);
    const suggested = await field.inputValue();
    expect(suggested).toMatch(/^npm run build/);
    await field.fill("npm run *");
    await page.keyboard.press("Enter");
    const resolved = await s.events.next("tool_approval_resolved");
    expect(resolved).toMatchObject({ outcome: "approved", scope: "always", pattern: "npm run *" });
    // The mutation returns once the file is written; the resolution is announced before that.
    await expect.poll(() => fs.readFileSync(cluster!.rulesFile, "utf8"), { timeout: 5000 }).toContain('"npm run *": "allow"');
    const rules = fs.readFileSync(cluster.rulesFile, "utf8");
    expect(rules).not.toContain(suggested === "npm run *" ? "\u0000" : `"${suggested}"`);
    const explained = await s.client.permissions.explain.query({ workerId: "w1", tool: "shell_exec", args: { command: "npm run lint" } });
    expect(explained.decision).toMatchObject({ action: "allow", rule: { pattern: "npm run *" } });
  });

  it("offers a critical call once only: no session or always button, s and a do nothing, y approves once", async () => {
    cluster = await Cluster.start({ rules: ASK_WRITES });
    const s = await session(cluster, [{ toolCalls: [{ tool: "shell_exec", args: { command: "dd if=/dev/zero of=/dev/null count=1" } }] }, { text: "written" }]);
    const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    await s.prompt();
    const shell = card(page, "shell_exec");
    await shell.waitFor();
    expect(await shell.locator(".critical").textContent()).toBeTruthy();
    expect(await shell.getByTestId("once-only").textContent()).toBe("Critical: approve once only");
    expect(await shell.locator(".answers button").allInnerTexts()).toEqual(["Approve once y", "Deny… n", "Deny hard N", "Edit… e", "Show all v"]);
    await answerable(shell);
    await shell.focus();
    await page.keyboard.press("s");
    await page.keyboard.press("a");
    expect(await shell.locator("form").count()).toBe(0);
    expect(s.events.of("tool_approval_resolved")).toEqual([]);
    await page.keyboard.press("y");
    expect(await s.events.next("tool_approval_resolved")).toMatchObject({ outcome: "approved", scope: "once" });
    await s.events.next("turn_ended");
  });

  it("two browsers see the same approval, a cut diff shows whole on v; one answer applies and the other card goes", { timeout: 60_000 }, async () => {
    cluster = await Cluster.start({ rules: ASK_WRITES });
    const long = Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join("\n");
    const s = await session(cluster, [{ toolCalls: [{ tool: "write_file", args: { path: "a.txt", content: long } }] }, { text: "done" }]);
    const a = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    const b = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    await s.prompt();
    await Promise.all([card(a.page, "write_file").waitFor(), card(b.page, "write_file").waitFor()]);
    const diff = card(a.page, "write_file").locator(".diff");
    expect(await card(a.page, "write_file").locator(".cut").textContent()).toMatch(/Shown in part \(cut; \d+ characters in all\)/);
    expect(await diff.textContent()).not.toContain("+line 400");
    await a.page.keyboard.press("v");
    await expect.poll(() => diff.textContent()).toContain("+line 400");
    // Whichever answer lands first takes the other browser's card away, so the later click may find nothing to press.
    const clicks = await Promise.allSettled([
      card(a.page, "write_file")
        .getByRole("button", { name: /Approve once/ })
        .click({ timeout: 5_000 }),
      card(b.page, "write_file")
        .getByRole("button", { name: /Deny hard/ })
        .click({ timeout: 5_000 }),
    ]);
    expect(clicks.some((click) => click.status === "fulfilled")).toBe(true);
    await s.events.next("turn_ended");
    expect(s.events.of("tool_approval_resolved")).toHaveLength(1);
    await expect.poll(() => Promise.all([a.page.locator("article.card").count(), b.page.locator("article.card").count()])).toEqual([0, 0]);
    // A third answer after the fact changes nothing either.
    const ask = s.events.of("tool_approval_required")[0]!;
    expect(await s.client.tool.deny.mutate({ sessionId: s.id, approvalId: ask.approvalId })).toEqual({ applied: false });
  });

  it("works over https and wss when the server speaks TLS", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "gh-web-tls-"));
    fs.writeFileSync(
      path.join(root, "config.json"),
      JSON.stringify({ port: 0, tls: "self-signed", dataDir: path.join(root, "data"), clientTokens: [{ token: CLIENT_TOKEN, name: "ada", role: "admin" }] }),
    );
    const server = spawn(
      process.execPath,
      [path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js"), "server", "--config", path.join(root, "config.json")],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    try {
      const port = await new Promise<number>((resolve, reject) => {
        readline.createInterface({ input: server.stdout! }).once("line", (line) => resolve(JSON.parse(line).port));
        server.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
      });
      const context = await chromium.browser().newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      await page.goto(`https://127.0.0.1:${port}/`);
      await page.getByLabel("Client token").fill(CLIENT_TOKEN);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("status").filter({ hasText: "connected" }).waitFor();
      expect(page.url()).toBe(`https://127.0.0.1:${port}/`);
    } finally {
      server.kill("SIGKILL");
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("gatehouse run --wait ends with its turn once the browser answers its call", async () => {
    cluster = await Cluster.start({ rules: ASK_WRITES });
    const scenario = cluster.scenario("run", [{ toolCalls: [{ tool: "shell_exec", args: { command: "echo from-run > run.txt" } }] }, { text: "run finished" }]);
    const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    const bin = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
    const args = ["run", "--prompt", "go", "--wait", "--server", cluster.url, "--worker", "w1", "--scenario", scenario];
    const run = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, GATEHOUSE_CLIENT_TOKEN: CLIENT_TOKEN } });
    let stdout = "";
    run.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => run.once("exit", resolve));
    try {
      const shell = card(page, "shell_exec");
      await shell.waitFor({ timeout: 20_000 });
      await shell.getByRole("button", { name: /Approve once/ }).click();
      expect(await exited).toBe(0);
      expect(stdout).toMatch(/approved by ada\n[\s\S]*run finished\nturn ended: completed\n$/);
      expect(fs.readFileSync(path.join(cluster.workDir, "run.txt"), "utf8")).toBe("from-run\n");
    } finally {
      run.kill("SIGKILL");
    }
  });
});
