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

describe("a watch that says whether a file may have changed since a look at it", () => {
  it("vouches for a look until the file is written in place", async () => {
    const { file } = fixture();
    const w = watch(file);
    const look = w.looking();
    await nextPoll();
    expect(w.unchangedSince(look)).toBe(true);
    fs.appendFileSync(file, " ");
    await nextPoll();
    expect(w.unchangedSince(look)).toBe(false);
    expect(w.unchangedSince(w.looking())).toBe(true);
  });

  it("sees the file replaced by a rename, as editors save", async () => {
    const { root, file } = fixture();
    fs.mkdirSync(path.join(root, "drafts"));
    fs.writeFileSync(path.join(root, "drafts", "new.jsonc"), "{ }");
    const w = watch(file);
    const look = w.looking();
    fs.renameSync(path.join(root, "drafts", "new.jsonc"), file);
    await nextPoll();
    expect(w.unchangedSince(look)).toBe(false);
  });

  it("does not let a look made before a change vouch once another look has armed the watch again", async () => {
    const { file } = fixture();
    const w = watch(file);
    const before = w.looking();
    fs.appendFileSync(file, " ");
    await nextPoll();
    const after = w.looking();
    expect(w.unchangedSince(after)).toBe(true);
    expect(w.unchangedSince(before)).toBe(false);
  });

  it("never takes a file reached through a symbolic link as unchanged, nor a missing one until it is there", () => {
    const { root, file } = fixture();
    fs.symlinkSync(root, path.join(root, "via"));
    const linked = watch(path.join(root, "via", "rules.jsonc"));
    expect(linked.unchangedSince(linked.looking())).toBe(false);
    const missing = watch(path.join(root, "later.jsonc"));
    expect(missing.unchangedSince(missing.looking())).toBe(false);
    fs.copyFileSync(file, path.join(root, "later.jsonc"));
    expect(missing.unchangedSince(missing.looking())).toBe(true);
  });

  it("vouches for a look for a second at most, and arms afresh after one, so a folder above replaced is seen", async () => {
    const { root } = fixture();
    const inner = path.join(root, "workers", "w1");
    fs.mkdirSync(inner, { recursive: true });
    const file = path.join(inner, "rules.jsonc");
    fs.writeFileSync(file, "{}");
    const w = watch(file);
    const clock = vi.spyOn(performance, "now").mockReturnValue(1_000);
    const look = w.looking();
    clock.mockReturnValue(1_999);
    expect(w.unchangedSince(look)).toBe(true);
    // A folder above the watched one replaced: no event reaches the watch on the old folder.
    fs.renameSync(path.join(root, "workers"), path.join(root, "old"));
    fs.mkdirSync(inner, { recursive: true });
    fs.writeFileSync(file, '{ "read_file": "deny" }');
    await nextPoll();
    clock.mockReturnValue(2_000);
    expect(w.unchangedSince(look)).toBe(false);
    const again = w.looking();
    fs.appendFileSync(file, " ");
    await nextPoll();
    expect(w.unchangedSince(again)).toBe(false);
  });
});
