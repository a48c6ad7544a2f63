import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/store/embedded-store.js";
import { describeStoreContract } from "../store-contract.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "gh-store-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => path.join(root, `state-${n++}.db`);

describeStoreContract("embedded", async () => new EmbeddedStore(fresh()));

describe("the embedded store on disk", () => {
  it("keeps everything across a reopen, and event ids go on rising", async () => {
    const file = fresh();
    const first = new EmbeddedStore(file);
    await first.appendEvent("s1", { type: "user_message", sessionId: "s1", at: "x", text: "a" });
    await first.appendEvent("s1", { type: "user_message", sessionId: "s1", at: "x", text: "b" });
    await first.addRuntimeRules("s1", "shell_exec", ["make"]);
    await first.close();
    const again = new EmbeddedStore(file);
    expect(await again.lastEventId()).toBe(2);
    expect((await again.appendEvent("s1", { type: "user_message", sessionId: "s1", at: "x", text: "c" })).id).toBe(3);
    expect(await again.runtimeRules("s1")).toHaveLength(1);
    await again.close();
  });

  it("keeps its write-ahead log bounded while writes never pause", async () => {
    const file = fresh();
    const store = new EmbeddedStore(file);
    const output = "x".repeat(200);
    let largest = 0;
    for (let batch = 0; batch < 1000; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.appendEvent(`s${i}`, { type: "assistant_text_delta", sessionId: `s${i}`, at: "x", text: output })),
      );
      if (batch % 50 === 0) largest = Math.max(largest, fs.statSync(`${file}-wal`).size);
    }
    expect(await store.lastEventId()).toBe(20_000);
    // Without checkpoints these 1,000 commits leave about 95 MB of log.
    expect(largest).toBeLessThan(40 * 1024 * 1024);
    await store.close();
    const again = new EmbeddedStore(file);
    expect(await again.eventsAfter(19_990)).toHaveLength(10);
    await again.close();
  });

  it("refuses a database written by a newer schema, naming the file", async () => {
    const file = fresh();
    const store = new EmbeddedStore(file);
    await store.close();
    const Database = (await import("better-sqlite3")).default;
    const db = new Database(file);
    db.pragma("user_version = 99");
    db.close();
    expect(() => new EmbeddedStore(file)).toThrow(new RegExp(`${file}: the state has schema version 99`));
  });
});

describe("an empty state file", () => {
  it("is refused, naming the file, rather than taken as a new database with nothing in it", async () => {
    const file = fresh();
    const store = new EmbeddedStore(file);
    await store.close();
    fs.truncateSync(file, 0);
    for (const f of [`${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    expect(() => new EmbeddedStore(file)).toThrow(new RegExp(`${file}: the state database is empty \\(0 bytes\\)`));
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});

describe("the embedded store's lock", () => {
  it("refuses a second server on the same file while the first one lives, and takes over from a dead one", async () => {
    const file = fresh();
    fs.writeFileSync(`${file}.lock`, String(process.ppid));
    expect(() => new EmbeddedStore(file)).toThrow(/in use by another Gatehouse server \(process \d+\)/);
    fs.writeFileSync(`${file}.lock`, "999999999");
    const store = new EmbeddedStore(file);
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toMatch(new RegExp(`^${process.pid} \\d+$`));
    await store.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it("takes over a lock whose pid now belongs to another process (a pid reused after a reboot), and refuses while its own process runs", async () => {
    const file = fresh();
    const parentStart = fs.readFileSync(`/proc/${process.ppid}/stat`, "utf8").split(") ")[1]!.split(" ")[19];
    fs.writeFileSync(`${file}.lock`, `${process.ppid} ${parentStart}`);
    expect(() => new EmbeddedStore(file)).toThrow(/in use by another Gatehouse server/);
    // The same live pid with another start is another process: the server that wrote this lock is gone.
    fs.writeFileSync(`${file}.lock`, `${process.ppid} 1`);
    const store = new EmbeddedStore(file);
    await store.close();
  });
});
