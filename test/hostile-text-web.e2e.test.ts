import { describe, expect, it } from "vitest";
import { chromiumForFile, signedIn } from "./support/browser.js";
import { CLIENT_TOKEN, Cluster, Events, waitUntil } from "./support/cluster.js";
import { HOSTILE_CASES, HOSTILE_FILES } from "./support/hostile-text.js";

let cluster: Cluster | undefined;
const chromium = chromiumForFile(async () => {
  await cluster?.stop();
  cluster = undefined;
});

/** Text as one line of words: every run of blanks one space. */
const words = (text: string) => text.replace(/\s+/g, " ");
/** What a page must never render as itself. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u;

describe("hostile text in the browser console", () => {
  it("shows every hidden character escaped and the mark on the card; Show all gives the whole", { timeout: 180_000 }, async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "read_file": "allow"}`, files: HOSTILE_FILES });
    const client = cluster.client();
    const steps = [...HOSTILE_CASES.map((c) => ({ text: `Case: ${c.name}.`, toolCalls: [c.call] })), { text: "All asked." }];
    const session = await client.session.create.mutate({ workerId: "w1", scenario: cluster.scenario("hostile", steps) });
    const events = new Events(client, { sessionId: session.id });
    const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN);
    await page.goto(`http://127.0.0.1:${cluster.port}/#/sessions/${encodeURIComponent(session.id)}`);
    await page.getByRole("heading", { name: /general session/ }).waitFor();
    await client.agent.prompt.mutate({ sessionId: session.id, text: "go" });

    for (const [i, c] of HOSTILE_CASES.entries()) {
      await waitUntil(() => events.of("tool_approval_required").length > i, 20_000, `the approval of: ${c.name}`);
      const approval = events.of("tool_approval_required")[i]!;
      const card = page.locator(`article[data-approval="${approval.approvalId}"]`);
      await card.waitFor({ timeout: 20_000 });
      const text = await card.innerText();
      expect(words(text), c.name).toContain(words(c.shown));
      expect(words(await card.getByTestId("mark").innerText()), c.name).toContain(words(c.mark));
      expect(text.replace(/[\n\t]/g, ""), c.name).not.toMatch(INVISIBLE);
      if (c.name.startsWith("thousands of spaces")) {
        await card.getByRole("button", { name: "Show all (v)" }).click();
        await card.getByText("Showing the whole presentation.").waitFor();
        const whole = await card.locator("pre").innerText();
        expect(whole).toContain(`echo ok${" ".repeat(3000)}; mv build .trash`);
        expect(whole).not.toContain("⟦");
      }
      expect((await client.tool.deny.mutate({ sessionId: session.id, approvalId: approval.approvalId })).applied).toBe(true);
      await card.waitFor({ state: "detached", timeout: 20_000 });
    }
    await events.next("turn_ended", () => true, 20_000);
    const transcript = await page.getByRole("log", { name: "Transcript" }).innerText();
    expect(transcript.replace(/[\n\t]/g, "")).not.toMatch(INVISIBLE);
    expect(transcript).toContain("mv build .trash\\b\\b");
    events.close();
  });
});
