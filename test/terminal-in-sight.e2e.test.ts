import fs from "node:fs";
import { stripVTControlCharacters } from "node:util";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLIENT_TOKEN, Cluster, Events, waitUntil } from "./support/cluster.js";
import { Tmux } from "./support/tmux.js";

// Each case starts a server, a worker and the terminal in tmux; a busy machine takes seconds a frame.
vi.setConfig({ testTimeout: 90_000 });

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const RULES = `{ "*": "ask", "read_file": "allow" }`;
const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

/** What each test started, stopped after it in the reverse order. */
const started: (() => unknown)[] = [];
afterEach(async () => {
  for (const stop of started.splice(0).reverse()) await stop();
});

/** A server and worker whose scripted model makes `calls` in one batch, and the terminal following the session in a tmux window of `rows` rows. */
async function asking(calls: unknown[], rows = 40, rules = RULES) {
  const cluster = await Cluster.start({ rules, files: { "src/main.ts": "main\n" } });
  started.push(() => cluster.stop());
  const client = cluster.client();
  const info = await client.session.create.mutate({
    workerId: "w1",
    scenario: cluster.scenario("in-sight", [{ text: "Working.", toolCalls: calls }, { text: "finished" }]),
  });
  const events = new Events(client, { sessionId: info.id });
  started.push(() => events.close());
  const t = new Tmux(`node ${BIN} connect --server ${cluster.url} --token ${CLIENT_TOKEN} --session ${info.id}`, 120, rows);
  started.push(() => t.kill());
  await t.waitFor(/· connected/, "the client to connect");
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  await t.waitFor(/n deny with feedback/, "the approval prompt");
  return { cluster, t, events };
}

describe("the terminal keeps the call being answered in sight", () => {
  it("with thirty calls waiting on a screen of thirty rows, the command and the keys are on screen, and y runs what is shown", async () => {
    const echoes = Array.from({ length: 30 }, (_, i) => shell(`echo step ${i + 1}`));
    const { cluster, t } = await asking([shell("rm -rf src"), ...echoes], 30);
    await t.waitFor(/… and 27 more/, "every approval raised");
    await t.waitFor(/y once/, "its keys");
    const screen = t.visible();
    expect(screen).toContain("$ rm -rf src");
    expect(screen).toMatch(/y once .* n deny with feedback/);
    // What a session answer would allow is named with it, not only beside "always".
    expect(screen).toMatch(/s session or a always \(rm \*\)/);
    t.keys("y");
    await waitUntil(() => !fs.existsSync(path.join(cluster.workDir, "src")), 20_000, "rm -rf src to run");
  });

  it("text after a run of tabs is drawn inside the box, not past its edge", async () => {
    const { t } = await asking([shell(`echo building the docs for the release of this project${"\t".repeat(15)}; rm -rf src`)]);
    // The screen's rows as drawn (not joined where the terminal wrapped them), colours dropped.
    const rows = stripVTControlCharacters(t.styledScreen()).split("\n");
    const row = rows.find((line) => line.includes("rm -rf src") && !line.includes("asking"));
    expect(row, rows.join("\n")).toMatch(/^│ .*; rm -rf src\s*│$/);
  });

  it("fifteen tabs and a stack of 480 combining marks are left out with a marker and named in red", async () => {
    const { t } = await asking([shell(`echo ok${"\u0489".repeat(480)} done\necho building the docs${"\t".repeat(15)}; rm -rf src`)]);
    const screen = t.visible();
    expect(screen).toContain("$ echo ok ⟦480 combining marks⟧  done");
    expect(screen).toContain("$ echo building the docs ⟦15 tabs⟧ ; rm -rf src");
    expect(screen).toContain("⚠ left out of sight: 480 combining marks on line 1; 15 tabs on line 2");
  });

  it("long lines that wrap are counted in rows: the prompt's top and the call's first line stay on a screen of forty rows", async () => {
    const long = Array.from({ length: 20 }, (_, i) => `echo "${`step ${i + 1} of the release build is running, please wait for it `.repeat(4)}"`);
    const { t } = await asking([shell(["rm -rf ~/backups", ...long].join("\n"))], 40);
    const screen = t.visible();
    expect(screen).toMatch(/╭─+╮\n│ approval shell_exec/);
    expect(screen).toContain("$ rm -rf ~/backups");
    expect(screen).toMatch(/⚠ left out of sight: \d+ more lines at lines \d+-21/);
    expect(screen).toMatch(/y once .* n deny with feedback/);
  });

  it("the lines a preview leaves out are in the red mark, not only in a dim note", async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `echo "building step ${i + 1}"`);
    const { t } = await asking([shell(`${lines.join("\n")}\nrm -rf src`)], 40);
    expect(t.visible()).toMatch(/⚠ left out of sight: \d+ more lines at lines \d+-41/);
  });

  it("typographic quotes that quote nothing are marked: the commit message's “; rm -rf src;” is a command", async () => {
    const { t } = await asking([shell("git commit -qam \u201cchore: tidy; rm -rf src; echo cleaned\u201d")]);
    expect(t.visible()).toContain("⚠ look-alike punctuation: “ (U+201C), ” (U+201D): plain characters to the shell, not quotes or operators");
  });

  it("a path with a newline cannot add a line of its own to why the call asks", async () => {
    const rules = `{ "*": "ask", "read_file": "allow", "write_file": "allow" }`;
    const { t } = await asking([{ tool: "write_file", args: { path: "../out\nwhy: allowed by your rules/x.txt", content: "x\n" } }], 40, rules);
    const rows = t.visible().split("\n");
    expect(
      rows.find((row) => row.startsWith("│ why: ")),
      t.visible(),
    ).toContain("out\\nwhy: allowed by your rules/x.txt is outside the work directory");
    expect(
      rows.some((row) => /^│ why: allowed by your rules/.test(row)),
      t.visible(),
    ).toBe(false);
  });

  it("an added line reading `++ b/README.md` is drawn as an addition, not as a second file's header", async () => {
    const { t } = await asking([{ tool: "write_file", args: { path: "package.json", content: "{}\n++ b/README.md\n" } }]);
    await t.waitFor(/\+\+\+ b\/README\.md/, "the diff");
    const row = t
      .styledScreen()
      .split("\n")
      .find((line) => stripVTControlCharacters(line).includes("+++ b/README.md"));
    expect(row).toContain("\x1b[32m+++ b/README.md");
  });

  it("letters of a feedback line typed on after another client answered the call answer nothing: the next call is held until Enter", async () => {
    const { cluster, t, events } = await asking([shell("echo hello"), shell("touch PWNED")]);
    await t.waitFor(/call 1 of 2[\s\S]*y once/, "the first approval");
    t.keys("n");
    await t.waitFor(/feedback for the model/, "the feedback line");
    t.type("please ");
    const first = events.of("tool_approval_required")[0]!;
    await cluster.client().tool.deny.mutate({ sessionId: first.sessionId, approvalId: first.approvalId });
    await t.waitFor(/answered elsewhere; this is another call/, "the next call, held");
    for (const key of ["s", "a", "y"]) {
      t.type(key);
      await new Promise((r) => setTimeout(r, 120));
    }
    await new Promise((r) => setTimeout(r, 1000));
    expect(events.of("tool_approval_resolved").filter((e) => e.approvalId !== first.approvalId)).toEqual([]);
    expect(fs.existsSync(path.join(cluster.workDir, "PWNED"))).toBe(false);
    t.keys("Enter");
    await t.waitFor(/\$ touch PWNED[\s\S]*y once/, "its keys after Enter");
  });
});
