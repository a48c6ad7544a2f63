import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chromiumForFile, signedIn } from "./support/browser.js";
import { CLIENT_TOKEN, Cluster, Events, waitUntil } from "./support/cluster.js";

let cluster: Cluster | undefined;
const chromium = chromiumForFile(async () => {
  await cluster?.stop();
  cluster = undefined;
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

/** A server and worker whose scripted model makes `calls` in one batch, with the console signed in at `width`. */
async function asking(calls: unknown[], width = 1200) {
  cluster = await Cluster.start({ rules: `{"*": "ask", "read_file": "allow"}`, files: { "src/main.ts": "main\n" } });
  const client = cluster.client();
  const { id, events } = await cluster.promptedSession(client, [{ text: "Working.", toolCalls: calls }, { text: "finished" }]);
  const { page } = await signedIn(chromium.browser(), cluster.port, CLIENT_TOKEN, { viewport: { width, height: 900 } });
  return { client, id, events, page };
}

/** How far the widest box of a card's presentation reaches past its right edge, in pixels (0: all in sight). */
const pastEdge = (events: Events, page: Awaited<ReturnType<typeof asking>>["page"]) => {
  const id = events.of("tool_approval_required")[0]!.approvalId;
  return page.evaluate<number>(
    `Math.max(...[...document.querySelectorAll('article[data-approval="${id}"] pre')].map((pre) => pre.scrollWidth - pre.clientWidth))`,
  );
};

describe("the console keeps what a call would do in sight", () => {
  for (const [name, command, width] of [
    ["a command of 339 characters on one line", `echo "${"building the docs for the release of this project, please wait; ".repeat(5)}"; rm -rf src`, 1200],
    ["text after fifteen tabs", `echo building the docs for the release of this project${"\t".repeat(15)}; rm -rf src`, 1200],
    ["a command of 90 characters at phone width", `echo "building the docs, please wait for it to end"; rm -rf src`, 360],
  ] as const) {
    it(`${name}: the card's box wraps it, nothing lies past its right edge`, { timeout: 90_000 }, async () => {
      const { events, page } = await asking([shell(command)], width);
      await waitUntil(() => events.of("tool_approval_required").length > 0, 20_000, "the approval");
      const card = page.locator(`article[data-approval="${events.of("tool_approval_required")[0]!.approvalId}"]`);
      await card.getByText("rm -rf src").waitFor({ timeout: 20_000 });
      expect(await pastEdge(events, page)).toBeLessThanOrEqual(0);
      events.close();
    });
  }

  it("the session answer names the patterns it allows: `rm -rf build` for this session allows `rm *`", { timeout: 90_000 }, async () => {
    const { events, page } = await asking([shell("rm -rf build")]);
    await waitUntil(() => events.of("tool_approval_required").length > 0, 20_000, "the approval");
    const card = page.locator(`article[data-approval="${events.of("tool_approval_required")[0]!.approvalId}"]`);
    await card.getByRole("button", { name: "For this session (rm *)" }).waitFor({ timeout: 20_000 });
    events.close();
  });

  it("fifteen tabs and a stack of 480 combining marks are left out with a marker and named in red", { timeout: 90_000 }, async () => {
    const command = `echo ok${"\u0489".repeat(480)} done\necho building the docs${"\t".repeat(15)}; rm -rf src`;
    const { events, page } = await asking([shell(command)]);
    await waitUntil(() => events.of("tool_approval_required").length > 0, 20_000, "the approval");
    const card = page.locator(`article[data-approval="${events.of("tool_approval_required")[0]!.approvalId}"]`);
    await card.getByTestId("mark").waitFor({ timeout: 20_000 });
    const shown = await card.locator("pre").first().innerText();
    expect(shown).toContain("echo ok ⟦480 combining marks⟧  done");
    expect(shown).toContain("echo building the docs ⟦15 tabs⟧ ; rm -rf src");
    expect(await card.getByTestId("mark").innerText()).toContain("left out of sight: 480 combining marks on line 1; 15 tabs on line 2");
    events.close();
  });

  it("typographic quotes that quote nothing are marked on the card", { timeout: 90_000 }, async () => {
    const { events, page } = await asking([shell("git commit -qam \u201cchore: tidy; rm -rf src; echo cleaned\u201d")]);
    await waitUntil(() => events.of("tool_approval_required").length > 0, 20_000, "the approval");
    const card = page.locator(`article[data-approval="${events.of("tool_approval_required")[0]!.approvalId}"]`);
    await card.getByTestId("mark").waitFor({ timeout: 20_000 });
    expect(await card.getByTestId("mark").innerText()).toContain("look-alike punctuation: “ (U+201C), ” (U+201D): plain characters to the shell");
    events.close();
  });

  it("an added line reading `++ b/README.md` is coloured as an addition, not as a second file's header", { timeout: 90_000 }, async () => {
    const { events, page } = await asking([{ tool: "write_file", args: { path: "package.json", content: "{}\n++ b/README.md\n" } }]);
    await waitUntil(() => events.of("tool_approval_required").length > 0, 20_000, "the approval");
    const card = page.locator(`article[data-approval="${events.of("tool_approval_required")[0]!.approvalId}"]`);
    await card.locator("pre.diff").waitFor({ timeout: 20_000 });
    expect(await card.locator("pre.diff span", { hasText: "+++ b/README.md" }).getAttribute("class")).toBe("d-add");
    expect(await card.locator("pre.diff span", { hasText: "+++ b/package.json" }).getAttribute("class")).toBe("d-head");
    events.close();
  });

  it(
    "letters of a feedback line typed on after another client answered the card answer nothing: the next card is held until Enter",
    { timeout: 90_000 },
    async () => {
      const { client, events, page } = await asking([shell("echo hello"), shell("touch PWNED")]);
      await waitUntil(() => events.of("tool_approval_required").length > 1, 20_000, "both approvals");
      const [first, second] = events.of("tool_approval_required");
      await page.locator(`article[data-approval="${second!.approvalId}"]`).waitFor({ timeout: 20_000 });
      await page.locator(`article[data-approval="${first!.approvalId}"]`).getByRole("button", { name: /Deny…/ }).click();
      await page.getByLabel("Feedback for the model (optional)").pressSequentially("please ", { delay: 50 });
      expect((await client.tool.deny.mutate({ sessionId: first!.sessionId, approvalId: first!.approvalId })).applied).toBe(true);
      await page.getByTestId("held").waitFor({ timeout: 20_000 });
      await page.keyboard.type("say why", { delay: 120 });
      await new Promise((r) => setTimeout(r, 1000));
      expect(events.of("tool_approval_resolved").filter((e) => e.approvalId === second!.approvalId)).toEqual([]);
      expect(fs.existsSync(path.join(cluster!.workDir, "PWNED"))).toBe(false);
      await page.keyboard.press("Enter");
      await page.getByTestId("held").waitFor({ state: "detached", timeout: 20_000 });
      events.close();
    },
  );
});
