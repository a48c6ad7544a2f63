import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, waitUntil } from "./support/cluster.js";

/**
 * A full disk under a worker's file tools: a folder of the work directory is a tmpfs of its own,
 * filled before the calls. A write that cannot be completed leaves the file as it was.
 */
let cluster: Cluster | undefined;
let mounted: string | undefined;
afterEach(async () => {
  if (mounted) execFileSync("umount", ["-l", mounted]);
  mounted = undefined;
  await cluster?.stop();
  cluster = undefined;
});

/** Mounts a 1 MiB tmpfs on `dir`; false where this process may not mount one. */
function smallDisk(dir: string): boolean {
  fs.mkdirSync(dir);
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir], { stdio: "ignore" });
    mounted = dir;
    return true;
  } catch {
    return false;
  }
}

const canMount = process.getuid?.() === 0;
describe.skipIf(!canMount)("file tools on a full disk (a tmpfs of 1 MiB; skipped where this process may not mount one)", { timeout: 60_000 }, () => {
  it("edit_file and write_file fail naming the cause, and leave the files they were changing as they were", async () => {
    const original = Array.from({ length: 3000 }, (_, i) => `line ${i} of a file worth keeping`).join("\n") + "\n";
    cluster = await Cluster.start({ rules: `{ "*": "allow" }`, workerFlags: ["--sandbox", "off"] });
    const c = cluster;
    const disk = path.join(c.workDir, "notes");
    if (!smallDisk(disk)) throw new Error("could not mount a tmpfs");
    fs.writeFileSync(path.join(disk, "big.txt"), original);
    fs.writeFileSync(path.join(disk, "other.txt"), "other file\n");
    const free = fs.statfsSync(disk);
    fs.writeFileSync(path.join(disk, "filler"), Buffer.alloc(Number(free.bavail * free.bsize)));

    const client = c.client();
    const { events } = await c.promptedSession(client, [
      {
        text: "Editing.",
        toolCalls: [{ tool: "edit_file", args: { path: "notes/big.txt", old_string: "line 0 of", new_string: `${"x".repeat(200_000)} line 0 of` } }],
      },
      { text: "Writing.", toolCalls: [{ tool: "write_file", args: { path: "notes/other.txt", content: "y".repeat(300_000) } }] },
      { text: "Done." },
    ]);
    await events.next("turn_ended", () => true, 20_000);
    expect(events.of("tool_result").map((r) => [r.toolName, r.ok, r.output])).toEqual([
      ["edit_file", false, expect.stringMatching(/notes\/big\.txt was left as it was: ENOSPC: no space left on device/)],
      ["write_file", false, expect.stringMatching(/notes\/other\.txt was left as it was: ENOSPC: no space left on device/)],
    ]);
    expect(fs.readFileSync(path.join(disk, "big.txt"), "utf8")).toBe(original);
    expect(fs.readFileSync(path.join(disk, "other.txt"), "utf8")).toBe("other file\n");

    // With room again, the same edit goes through.
    fs.rmSync(path.join(disk, "filler"));
    const again = await c.promptedSession(client, [
      { text: "Editing.", toolCalls: [{ tool: "edit_file", args: { path: "notes/big.txt", old_string: "line 0 of", new_string: "line zero of" } }] },
      { text: "Done." },
    ]);
    await again.events.next("turn_ended", () => true, 20_000);
    expect(fs.readFileSync(path.join(disk, "big.txt"), "utf8")).toBe(original.replace("line 0 of", "line zero of"));
  });
});

describe.skipIf(!canMount)("a data directory that fills while a call runs (a tmpfs of 3 MiB)", { timeout: 60_000 }, () => {
  it("keeps the call's result: it is recorded once there is room, the turn then ends with the error, and the model is told what the call did", async () => {
    const disk = fs.mkdtempSync(path.join(os.tmpdir(), "gh-full-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", disk]);
    mounted = disk;
    const dataDir = path.join(disk, "data");
    fs.mkdirSync(path.join(dataDir, "workers", "w1"), { recursive: true });
    fs.writeFileSync(path.join(dataDir, "workers", "w1", "permissions.jsonc"), `{ "*": "allow" }`);
    cluster = await Cluster.start({ config: { dataDir }, workerFlags: ["--sandbox", "off"] });
    const c = cluster;
    const client = c.client();
    // The output is larger than the room SQLite's log can reuse, so its write meets the full disk.
    const command = `sleep 2; echo ran >> effects.txt; echo the-call-ran; head -c 800000 /dev/zero | tr '\\0' x`;
    const { id, events } = await c.promptedSession(client, [
      { text: "Working.", toolCalls: [{ tool: "shell_exec", args: { command } }] },
      { text: "Told: {{lastResult}}" },
    ]);
    const started = await events.next("tool_call_started");
    const free = fs.statfsSync(disk);
    fs.writeFileSync(path.join(disk, "filler"), Buffer.alloc(Number(free.bavail * free.bsize)));
    await waitUntil(() => c.serverLog.some((l) => l.includes("could not be recorded")), 15_000, "a write to fail");
    fs.rmSync(path.join(disk, "filler"));

    const ended = await events.next("turn_ended", () => true, 20_000);
    expect(ended.reason).toBe("error");
    expect(events.of("session_error").map((e) => e.code)).toEqual(["STORE_UNAVAILABLE"]);
    const results = events.of("tool_result");
    expect(results.map((r) => [r.callId, r.outcome, r.output.slice(0, 13)])).toEqual([[started.callId, "ok", "the-call-ran\n"]]);
    expect(fs.readFileSync(path.join(c.workDir, "effects.txt"), "utf8")).toBe("ran\n");

    await client.agent.prompt.mutate({ sessionId: id, text: "again" });
    await events.next("turn_ended", (e) => e !== ended, 20_000);
    // The first turn ended before the model heard back; the next one tells it what the call printed, never that it did not run.
    const told = events.of("assistant_message").at(-1)!.message;
    expect(told.role === "assistant" && told.text).toMatch(/^Told: the-call-ran\n/);
    expect(fs.readFileSync(path.join(c.workDir, "effects.txt"), "utf8")).toBe("ran\n");
  });
});

describe.skipIf(!canMount)("a worker's rules file first written on a full data directory (a tmpfs of 3 MiB)", { timeout: 60_000 }, () => {
  it("is written whole once there is room, not left empty for good", async () => {
    const disk = fs.mkdtempSync(path.join(os.tmpdir(), "gh-full-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", disk]);
    mounted = disk;
    cluster = await Cluster.start({ config: { dataDir: path.join(disk, "data") } });
    const c = cluster;
    const client = c.client();
    const rulesFile = path.join(disk, "data", "workers", "w1", "permissions.jsonc");
    // A worker this server has not seen yet, whose folder does not exist: its first call seeds the default rules.
    fs.rmSync(path.dirname(rulesFile), { recursive: true });
    await c.restartServer();
    await waitUntil(async () => (await client.workers.list.query().catch(() => [])).some((w) => w.connected), 15_000, "the worker to come back");
    const free = fs.statfsSync(disk);
    fs.writeFileSync(path.join(disk, "filler"), Buffer.alloc(Number(free.bavail * free.bsize)));
    const read = { workerId: "w1", tool: "read_file", args: { path: "README.md" } };
    const full = await client.permissions.explain.query(read).then(
      (r) => r.decision.reason,
      (err: Error) => err.message,
    );
    expect(full).toMatch(/cannot write the default rules: ENOSPC/);
    expect(fs.existsSync(rulesFile)).toBe(false);

    fs.rmSync(path.join(disk, "filler"));
    const decided = await client.permissions.explain.query(read);
    expect(decided.decision.action).toBe("allow");
    expect(fs.readFileSync(rulesFile, "utf8")).toMatch(/"read_file"/);
  });
});
