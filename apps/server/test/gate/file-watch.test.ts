import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FileWatch } from "../../src/gate/file-watch.js";

const roots: string[] = [];
const watches: FileWatch[] = [];
afterEach(() => {
  for (const w of watches.splice(0)) w.close();
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
  vi.restoreAllMocks();
});

function fixture() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-watch-")));
  roots.push(root);
  const file = path.join(root, "rules.jsonc");
  fs.writeFileSync(file, "{}");
  return { root, file };
}

function watch(file: string): FileWatch {
  const w = new FileWatch(file);
  watches.push(w);
  return w;
}

/** The event loop polls once more: what the kernel told the watch by now has reached it. */
const nextPoll = async () => {
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe("a watch that says whether a file may have changed since it was last looked at", () => {
  it("is unchanged only after a look, until the file is written in place", async () => {
    const { file } = fixture();
    const w = watch(file);
    expect(w.unchanged()).toBe(false);
    w.looking();
    await nextPoll();
    expect(w.unchanged()).toBe(true);
    fs.appendFileSync(file, " ");
    await nextPoll();
    expect(w.unchanged()).toBe(false);
    w.looking();
    expect(w.unchanged()).toBe(true);
  });

  it("sees the file replaced by a rename, as editors save", async () => {
    const { root, file } = fixture();
    fs.mkdirSync(path.join(root, "drafts"));
    fs.writeFileSync(path.join(root, "drafts", "new.jsonc"), "{ }");
    const w = watch(file);
    w.looking();
    fs.renameSync(path.join(root, "drafts", "new.jsonc"), file);
    await nextPoll();
    expect(w.unchanged()).toBe(false);
  });

  it("never takes a file reached through a symbolic link as unchanged, nor a missing one until it is there", async () => {
    const { root, file } = fixture();
    fs.symlinkSync(root, path.join(root, "via"));
    const linked = watch(path.join(root, "via", "rules.jsonc"));
    linked.looking();
    expect(linked.unchanged()).toBe(false);
    const missing = watch(path.join(root, "later.jsonc"));
    missing.looking();
    expect(missing.unchanged()).toBe(false);
    fs.copyFileSync(file, path.join(root, "later.jsonc"));
    missing.looking();
    expect(missing.unchanged()).toBe(true);
  });

  it("is looked at again after a second however quiet it is", () => {
    const { file } = fixture();
    const w = watch(file);
    const clock = vi.spyOn(performance, "now").mockReturnValue(1_000);
    w.looking();
    expect(w.unchanged()).toBe(true);
    clock.mockReturnValue(1_999);
    expect(w.unchanged()).toBe(true);
    clock.mockReturnValue(2_000);
    expect(w.unchanged()).toBe(false);
  });
});
