import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closeDescriptor, createIn, FileRefusedError, openDeepestFolder, openRegular, readHead, readLines } from "../src/index.js";

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-fs-guard-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("opening a file and reading back what was opened", () => {
  it("names the real path of what a symlink led to", () => {
    fs.writeFileSync(path.join(root, "target.txt"), "t");
    fs.symlinkSync("target.txt", path.join(root, "link.txt"));
    const opened = openRegular(path.join(root, "link.txt"), "link.txt");
    closeDescriptor(opened.fd);
    expect(opened.real).toBe(path.join(root, "target.txt"));
  });

  it("refuses a FIFO without blocking on it, and a procfs file", () => {
    execFileSync("mkfifo", [path.join(root, "fifo")]);
    expect(() => openRegular(path.join(root, "fifo"), "fifo")).toThrow(/fifo is not a regular file/);
    expect(() => openRegular("/proc/self/status", "status")).toThrow(FileRefusedError);
  });

  it("makes a new file in an opened folder, never through a dangling symlink", () => {
    fs.symlinkSync(path.join(root, "elsewhere.txt"), path.join(root, "dangling.txt"));
    const { folder, missing } = openDeepestFolder(path.join(root, "a", "b"));
    expect([folder.real, missing]).toEqual([root, ["a", "b"]]);
    expect(() => createIn(folder, "dangling.txt", "dangling.txt")).toThrow(/a symlink to a file that does not exist/);
    expect(fs.existsSync(path.join(root, "elsewhere.txt"))).toBe(false);
    closeDescriptor(createIn(folder, "new.txt", "new.txt").fd);
    closeDescriptor(folder.fd);
    expect(fs.statSync(path.join(root, "new.txt")).isFile()).toBe(true);
  });
});

describe("bounded reads", () => {
  const file = path.join(root, "lines.txt");
  fs.writeFileSync(file, `one\ntwo\n${"x".repeat(100_000)}\nfour\n`);

  it("read at most the bound, and say there was more", async () => {
    const fd = fs.openSync(file, "r");
    expect(await readHead(fd, 7)).toEqual({ text: "one\ntwo", more: true });
    expect((await readHead(fd, 1_000_000, 100_000)).more).toBe(false);
    fs.closeSync(fd);
  });

  it("keep only the lines asked for, and cut an endless line at the bound", async () => {
    const fd = fs.openSync(file, "r");
    expect(await readLines(fd, 1, 1, 1000)).toEqual({ text: "two", more: false });
    expect(await readLines(fd, 3, 5, 1000)).toEqual({ text: "four\n", more: false });
    const long = await readLines(fd, 2, 1, 1000);
    expect([long.text.length, long.more]).toEqual([1000, true]);
    fs.closeSync(fd);
  });
});
