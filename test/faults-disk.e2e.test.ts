import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster } from "./support/cluster.js";

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
