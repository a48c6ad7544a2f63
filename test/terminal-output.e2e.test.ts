import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { Tmux } from "./support/tmux.js";

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");

let tmux: Tmux | undefined;
let root: string | undefined;
afterEach(() => {
  tmux?.kill();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

it("a !command's whole output opens in a pager with /output, not only its first lines", async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-term-output-")));
  fs.mkdirSync(path.join(root, "work"));
  const scenario = path.join(root, "scenario.json");
  fs.writeFileSync(scenario, JSON.stringify({ name: "ready", steps: [{ text: "Ready." }] }));
  const t = (tmux = new Tmux(`node ${BIN} --dir ${root}/work --data-dir ${root}/data --scenario ${scenario}`, 100, 30));
  await t.waitFor(/a prompt, !command/, "the input line");
  t.type("/output");
  t.keys("Enter");
  await t.waitFor(/no !command has ended yet/, "the answer when nothing ran");

  t.type("!printf 'line-%s\\n' {1..200}");
  t.keys("Enter");
  const ended = await t.waitFor(/… 180 more line\(s\)\n +\/output shows the whole output in a pager/, "the preview and the hint");
  expect(ended).toMatch(/^ +line-20 *$/m);
  expect(ended).not.toMatch(/^ +line-21 *$/m);

  t.type("/output");
  t.keys("Enter");
  const first = await t.waitFor(/!printf 'line-%s\\n' \{1\.\.200\} \(exit 0\): lines 1-28 of 200/, "the pager");
  expect(t.visible()).toMatch(/^line-28 *$/m);
  expect(first).not.toMatch(/^line-29 *$/m);
  t.keys("G");
  await t.waitFor(/lines 173-200 of 200/, "the last page");
  expect(t.visible()).toMatch(/^line-200 *$/m);
  expect(t.visible()).not.toMatch(/^line-172 *$/m);
  t.keys("q");
  await t.waitFor(/a prompt, !command/, "the input line again");
  t.keys("C-c");
  await t.waitFor(/EXITED 0/, "a clean exit");
}, 60_000);
