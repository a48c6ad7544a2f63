// Takes the screenshots of the browser console used in README.md and docs/web.md:
//   node --import tsx scripts/screenshots.ts     (writes docs/images/web-*.png)
import path from "node:path";
import type { Page } from "playwright-core";
import { launchChromium, signedIn } from "../test/support/browser.js";
import { CLIENT_TOKEN, Cluster, Events } from "../test/support/cluster.js";

const OUT = path.resolve(import.meta.dirname, "../docs/images");
const RULES = `// Rules of the demo worker.
{
  "*": "ask",
  "read_file": { "*": "allow", "*.env": "deny" },
  "glob": "allow",
  "write_file": "ask",
  "edit_file": "ask",
  "task": "allow",
  "shell_exec": {
    "*": "ask",
    "ls *": "allow",
    "git status": "allow",
    "git *": "ask",
    "git status": "deny"
  }
}
`;
const APP = `export function greet(name) {\n  return "Hello, " + name;\n}\n\nexport function farewell(name) {\n  return "Bye, " + name;\n}\n`;

const cluster = await Cluster.start({ rules: RULES, files: { "src/greet.js": APP, "README.md": "# demo\n", "package.json": "{}\n" } });
const chromium = await launchChromium();
try {
  const client = cluster.client();
  const main = await client.session.create.mutate({
    workerId: "w1",
    scenario: cluster.scenario("fix", [
      { text: "Let me look at the sources first.", toolCalls: [{ tool: "glob", args: { pattern: "src/**/*.js" } }] },
      {
        text: "I'll use a template string in greet() and then run the tests.",
        toolCalls: [
          { tool: "edit_file", args: { path: "src/greet.js", old_string: 'return "Hello, " + name;', new_string: "return `Hello, ${name}!`;" } },
          { tool: "shell_exec", args: { command: "npm test -- --run greet" } },
        ],
      },
      { text: "Done." },
    ]),
  });
  const docs = await client.session.create.mutate({
    workerId: "w1",
    scenario: cluster.scenario(
      "docs",
      [
        { text: "A subagent will write the changelog.", toolCalls: [{ tool: "task", args: { agent: "general", prompt: "write CHANGELOG.md" } }] },
        { text: "{{lastResult}}" },
      ],
      {
        general: [
          { toolCalls: [{ tool: "write_file", args: { path: "CHANGELOG.md", content: "# Changelog\n\n- greet() says hello with an exclamation mark\n" } }] },
          { text: "Wrote it." },
        ],
      },
    ),
  });
  const events = new Events(client, {});
  await client.agent.prompt.mutate({ sessionId: main.id, text: "Make greet() use a template string and run its tests." });
  await client.agent.prompt.mutate({ sessionId: docs.id, text: "Add a changelog entry." });
  const { waitUntil } = await import("../test/support/wait.js");
  await waitUntil(() => events.of("tool_approval_required").length === 3, 10_000, "three approvals");

  const shot = async (page: Page, name: string, fullPage = true) => {
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(OUT, `web-${name}.png`), fullPage });
    console.log(`docs/images/web-${name}.png`);
  };
  const { page } = await signedIn(chromium.browser, cluster.port, CLIENT_TOKEN, { viewport: { width: 1100, height: 800 } });
  await page.locator("article.card").nth(2).waitFor();
  await shot(page, "inbox");

  await page.locator('article[data-tool="shell_exec"]').focus();
  await page.keyboard.press("a");
  await page.getByLabel("Pattern 1").fill("npm test *");
  await page.locator('article[data-tool="shell_exec"]').screenshot({ path: path.join(OUT, "web-always.png") });
  console.log("docs/images/web-always.png");
  await page.keyboard.press("Escape");

  await page.goto(`http://127.0.0.1:${cluster.port}/#/sessions`);
  await page.locator(".tree.nested").waitFor();
  await shot(page, "sessions");

  await page.goto(`http://127.0.0.1:${cluster.port}/#/sessions/${main.id}`);
  await page.getByRole("log", { name: "Transcript" }).waitFor();
  await shot(page, "session");

  await page.goto(`http://127.0.0.1:${cluster.port}/#/workers/w1`);
  await page.getByText("warning:").first().waitFor();
  await page.getByLabel("Arguments (JSON)").fill('{"command": "git push --force origin main && rm -rf ~"}');
  await page.getByRole("button", { name: "Explain" }).click();
  await page.locator(".decision").waitFor();
  await shot(page, "worker");

  const phone = await signedIn(chromium.browser, cluster.port, CLIENT_TOKEN, { viewport: { width: 390, height: 844 } });
  await phone.page.locator("article.card").first().waitFor();
  await shot(phone.page, "phone", false);
} finally {
  await chromium.close();
  await cluster.stop();
}
