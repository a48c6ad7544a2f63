import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WorkerPermissions } from "../../src/gate/worker-permissions.js";

function setup() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-perm-"));
  const permissions = new WorkerPermissions(dataDir, "/home/u");
  return { dataDir, permissions, file: permissions.file("w1") };
}

/** Lets the current synchronous run end: an edit made in it is seen from the next one on. */
const nextRun = () => new Promise((resolve) => setImmediate(resolve));

const within = async <T>(ms: number, f: () => T): Promise<T> => {
  const started = Date.now();
  const out = f();
  expect(Date.now() - started).toBeLessThan(ms);
  return out;
};

describe("a worker's permissions file", () => {
  it("is seeded for a new worker, and a deleted one is an error, never re-seeded", async () => {
    const { permissions, file } = setup();
    expect(permissions.load("w1").ok).toBe(true);
    fs.rmSync(file);
    await nextRun();
    const again = permissions.load("w1");
    expect(again).toMatchObject({ ok: false });
    if (!again.ok) expect(again.error.message).toMatch(/does not exist \(it is not re-created/);
    expect(fs.existsSync(file)).toBe(false);
    // A new server process (no memory of the worker) does not re-seed either: the worker's directory is there.
    expect(new WorkerPermissions(path.dirname(path.dirname(path.dirname(file))), "/home/u").load("w1").ok).toBe(false);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("a FIFO in its place neither blocks the server nor loads", async () => {
    const { permissions, file } = setup();
    permissions.load("w1");
    fs.rmSync(file);
    execFileSync("mkfifo", [file]);
    await nextRun();
    const loaded = await within(1000, () => permissions.load("w1"));
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error.message).toMatch(/is a FIFO, not a regular file/);
    expect(await within(1000, () => permissions.text("w1"))).toBe("");
    await expect(permissions.append("w1", "bash", "ls *", "by test")).rejects.toThrow(/FIFO/);
  });

  it("a directory in its place is reported as one", async () => {
    const { permissions, file } = setup();
    permissions.load("w1");
    fs.rmSync(file);
    fs.mkdirSync(file);
    await nextRun();
    const loaded = permissions.load("w1");
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error.message).toMatch(/is a directory, not a regular file/);
  });

  it("is checked once in a synchronous run, and an edit is seen from the next run on", async () => {
    const { permissions, file } = setup();
    const first = permissions.load("w1");
    fs.writeFileSync(file, `{"*": "deny"}`);
    expect(permissions.load("w1")).toBe(first);
    await Promise.resolve();
    expect(permissions.load("w1")).toBe(first);
    await nextRun();
    const edited = permissions.load("w1");
    expect(edited.ok && edited.ruleset.rules.map((r) => r.action)).toEqual(["deny"]);
  });

  it("as a call about to run takes it (current), shows an edit once the watch has seen it, for every home of the worker", async () => {
    const { permissions, file } = setup();
    permissions.load("w1", "/home/a");
    await nextRun();
    const before = permissions.current("w1", "/home/a");
    expect(permissions.current("w1", "/home/a")).toBe(before);
    fs.writeFileSync(file, `{"*": "deny"}`);
    for (let turn = 0; turn < 2; turn++) await nextRun();
    // A look for another home arms the watch again; it does not vouch for what home a was given before the edit.
    permissions.load("w1", "/home/b");
    await nextRun();
    const now = permissions.current("w1", "/home/a");
    expect(now.ok && now.ruleset.rules.map((r) => r.action)).toEqual(["deny"]);
    permissions.close();
  });
});
