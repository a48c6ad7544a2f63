import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AssumedPaths, Guard } from "@gatehouse/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_TOOLS, FileGuard, runTool } from "../src/index.js";
import { PathsMovedError } from "../src/errors.js";
import { checkAssumedOpened, movedPaths } from "../src/real-paths.js";
import { defaultGuardRules } from "./default-guard-rules.js";

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-assumed-")));
const work = path.join(root, "work");
fs.mkdirSync(work);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const at = (name: string) => path.join(work, name);

const guard: Guard = { agent: null, static: defaultGuardRules(), runtime: [], protectedPaths: [] };

const write = (file: string, content: string, assumed?: AssumedPaths) =>
  runTool(
    BUILTIN_TOOLS,
    {
      type: "run",
      requestId: "r",
      sessionId: "s",
      toolName: "write_file",
      args: { path: file, content },
      timeoutMs: 10_000,
      guard,
      ...(assumed ? { assumed } : {}),
    },
    new FileGuard(guard, work),
    new AbortController().signal,
  );

describe("a run message's assumed paths, checked before the call runs", () => {
  it("runs the call when each path leads where the decision assumed", async () => {
    fs.writeFileSync(at("plain.txt"), "old\n");
    const result = await write("plain.txt", "new\n", { [at("plain.txt")]: { real: at("plain.txt") } });
    expect(result.ok).toBe(true);
    expect(result.moved).toBeUndefined();
    expect(fs.readFileSync(at("plain.txt"), "utf8")).toBe("new\n");
  });

  it("does not run it when a path became a link after the decision, and names where each path leads now", async () => {
    fs.writeFileSync(at("target.txt"), "kept\n");
    fs.symlinkSync("target.txt", at("swapped.txt"));
    const result = await write("swapped.txt", "overwritten\n", { [at("swapped.txt")]: { real: at("swapped.txt") } });
    expect(result).toMatchObject({ ok: false, moved: { [at("swapped.txt")]: { real: at("target.txt") } } });
    expect(result.output).toMatch(/^not run: its paths lead elsewhere than its decision assumed \(.*swapped\.txt -> .*target\.txt\)/);
    expect(fs.readFileSync(at("target.txt"), "utf8")).toBe("kept\n");
  });

  it("does not run it when a path can no longer be resolved, and says why", async () => {
    fs.symlinkSync("loop-b", at("loop-a"));
    fs.symlinkSync("loop-a", at("loop-b"));
    const result = await write("loop-a/x.txt", "x\n", { [at("loop-a/x.txt")]: { real: at("loop-a/x.txt") } });
    expect(result).toMatchObject({ ok: false, moved: { [at("loop-a/x.txt")]: { error: "ELOOP" } } });
  });

  it("holds an unresolvable path as assumed when it is still so, and a real path other than the one assumed as moved", () => {
    expect(movedPaths({ [at("loop-a/y")]: { error: "ELOOP" } })).toBeNull();
    expect(movedPaths({ [at("loop-a/y")]: { real: at("loop-a/y") } })).toEqual({ [at("loop-a/y")]: { error: "ELOOP" } });
    expect(movedPaths({ [at("plain.txt")]: { real: at("target.txt") } })).toEqual({ [at("plain.txt")]: { real: at("plain.txt") } });
  });

  it("compares what a tool opened with what was assumed for its path: elsewhere, it names the opened object's path and where the others lead now", () => {
    const assumed = { [at("plain.txt")]: { real: at("plain.txt") }, [at("swapped.txt")]: { real: at("swapped.txt") } };
    expect(() => checkAssumedOpened({ [at("plain.txt")]: { real: at("plain.txt") } }, at("plain.txt"), at("plain.txt"))).not.toThrow();
    expect(() => checkAssumedOpened(undefined, at("plain.txt"), at("target.txt"))).not.toThrow();
    // Another path the decision assumed counts too, resolved afresh: swapped.txt leads to target.txt now.
    expect(() => checkAssumedOpened(assumed, at("plain.txt"), at("plain.txt"))).toThrow(PathsMovedError);
    let thrown: unknown;
    try {
      checkAssumedOpened(assumed, at("plain.txt"), at(".git/config"));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PathsMovedError);
    expect((thrown as PathsMovedError).moved).toEqual({ [at("plain.txt")]: { real: at(".git/config") }, [at("swapped.txt")]: { real: at("target.txt") } });
  });

  it("leaves a message without assumed paths to the tool's own check, as from a server that asked first", async () => {
    expect((await write("plain.txt", "again\n")).ok).toBe(true);
    expect(fs.readFileSync(at("plain.txt"), "utf8")).toBe("again\n");
  });
});
