import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_TOOLS, FileGuard, runTool } from "../src/index.js";
import { defaultGuardRules } from "./default-guard-rules.js";

/**
 * A "container": a process in a mount namespace of its own, with a tmpfs at a folder that is
 * empty on the host. A symlink through `/proc/PID/root` reaches its files; file tools must not.
 */
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-other-ns-")));
const work = path.join(root, "work");
const inside = path.join(root, "opt-x");
fs.mkdirSync(work);
fs.mkdirSync(inside);
fs.writeFileSync(path.join(work, "plain.txt"), "plain\n");
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const SECRET = "CONTAINER-ONLY-DB-ROW password=hunter3";

/** The container's process, once its tmpfs holds the file; null where this process may not make a mount namespace. */
async function startContainer(): Promise<ChildProcess | null> {
  const script = `mount -t tmpfs none ${inside} && echo '${SECRET}' > ${inside}/app.db && echo ready && exec sleep 120`;
  const child = spawn("unshare", ["-m", "--propagation", "private", "sh", "-c", script], { stdio: ["ignore", "pipe", "ignore"] });
  const ready = await new Promise<boolean>((resolve) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(true));
    child.once("error", () => resolve(false));
    child.once("exit", () => resolve(false));
  });
  return ready ? child : null;
}

const container = await startContainer();
afterAll(() => void container?.kill("SIGKILL"));
if (container) fs.symlinkSync(`/proc/${container.pid}/root${inside}`, path.join(work, "ns"));

const guard: Guard = { agent: null, static: defaultGuardRules(), runtime: [], protectedPaths: [] };
const run = (toolName: string, args: Record<string, unknown>) =>
  runTool(
    BUILTIN_TOOLS,
    { type: "run", requestId: "r", sessionId: "s", toolName, args, timeoutMs: 10_000, guard, granted: "rules" },
    new FileGuard(guard, work),
    new AbortController().signal,
  );

describe.skipIf(!container)("file tools do not reach into another mount namespace through /proc/PID/root (skipped where unshare is not permitted)", () => {
  it("the container's file is there through the link, and not on the host", () => {
    expect(fs.readdirSync(inside)).toEqual([]);
    expect(fs.readFileSync(path.join(work, "ns", "app.db"), "utf8")).toContain(SECRET);
  });

  it("read_file through the link is refused", async () => {
    const r = await run("read_file", { path: "ns/app.db" });
    expect(r.output).not.toContain(SECRET);
    expect(r).toMatchObject({ ok: false });
    expect(r.output).toContain("another mount namespace");
  });

  it("grep and glob of the linked folder are refused, and a search of the work directory finds nothing there", async () => {
    for (const [tool, args] of [
      ["grep", { pattern: "password", path: "ns" }],
      ["grep", { pattern: "password", path: "ns/app.db" }],
      ["glob", { pattern: "**", path: "ns" }],
    ] as const) {
      const r = await run(tool, args);
      expect(r.output, `${tool} ${JSON.stringify(args)}`).not.toContain(SECRET);
      expect(r.output).toContain("another mount namespace");
      expect(r.ok).toBe(false);
    }
    expect((await run("grep", { pattern: "password" })).output).not.toContain(SECRET);
  });

  it("write_file and edit_file through the link are refused", async () => {
    expect((await run("write_file", { path: "ns/new.txt", content: "x" })).ok).toBe(false);
    expect((await run("edit_file", { path: "ns/app.db", old_string: "hunter3", new_string: "x" })).ok).toBe(false);
    expect(fs.readFileSync(path.join(work, "ns", "app.db"), "utf8")).toContain(SECRET);
  });

  it("files of this namespace, through plain links too, are read as before", async () => {
    fs.symlinkSync("plain.txt", path.join(work, "alias.txt"));
    expect(await run("read_file", { path: "alias.txt" })).toEqual({ ok: true, output: "plain\n" });
    expect((await run("grep", { pattern: "plain" })).output).toContain("plain.txt");
  });
});
