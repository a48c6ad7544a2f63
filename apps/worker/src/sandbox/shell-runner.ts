import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Writable } from "node:stream";
import { silentLog, type Log } from "@gatehouse/log";
import type { Granted, SandboxInfo } from "@gatehouse/protocol";
import type { FileGuard } from "../file-guard.js";
import { bwrapCommandLine, bwrapLauncher, bwrapOptions, OPTIONS_FD, optionsData } from "./bwrap-args.js";
import { BWRAP } from "./detect.js";
import { removeMade } from "./git-execution-parts.js";
import { spawnWatched } from "./group-watchdog.js";
import { ProfileBuilder, type SandboxProfile } from "./profile.js";
import { safeEnvironment } from "./safe-env.js";

export type ShellOrigin = "model" | "person";

/**
 * Starts shell commands for the worker: inside bubblewrap with a profile derived from the call's
 * rules when the sandbox is active, as plain bash otherwise; always with the safe environment and
 * in a process group of its own, so that killing the group ends the command (and, in the sandbox,
 * its PID namespace with everything it started). Outside the sandbox a watchdog kills the group
 * if the worker dies first.
 */
export class ShellRunner {
  private readonly profiles: ProfileBuilder;
  private emptyFile: string | null = null;
  private readonly log: Log;
  /** The worker's own secrets: hidden from MCP servers too, which run under no call's guard. */
  private readonly ownSecrets: readonly string[];

  /**
   * With `watch` (the default) the work directory is kept current from change notices rather than
   * a stat of every folder on each call; `log` hears once when it has to fall back to the stat.
   */
  constructor(
    readonly workDir: string,
    readonly info: SandboxInfo,
    options: { log?: Log; watch?: boolean; ownSecrets?: readonly string[] } = {},
  ) {
    this.profiles = new ProfileBuilder(workDir, info.network);
    this.ownSecrets = options.ownSecrets ?? [];
    this.log = options.log ?? silentLog;
    if (info.active && options.watch !== false) this.profiles.workTree.watchChanges((reason) => this.log.warn(reason));
  }

  /** How the work directory is kept current: its walks so far, and why notices are not used (null while they are). */
  get treeState(): { walks: number; fallback: string | null } {
    return { walks: this.profiles.workTree.walks, fallback: this.profiles.workTree.fallback };
  }

  /** Stops watching the work directory. */
  close(): void {
    this.profiles.workTree.stopWatching();
  }

  /** Folders judged against the rules so far (for tests and diagnostics). */
  get foldersJudged(): number {
    return this.profiles.foldersJudged;
  }

  /** The profile a command of this origin would run under now (for tests and diagnostics). */
  profile(guard: FileGuard, origin: ShellOrigin = "model"): Promise<SandboxProfile> {
    if (origin === "person") return Promise.resolve(this.profiles.base(guard.context.protectedPaths ?? []));
    return this.profiles.build(guard.fileKey, guard.context, guard.rules);
  }

  /** Starts `command`; rejects with ToolRefused (from the guard) or SandboxRefused before anything runs. */
  async spawn(command: string, guard: FileGuard, origin: ShellOrigin = "model", granted: Granted = "rules"): Promise<ChildProcess> {
    if (origin === "model") guard.checkShell(command, granted);
    return this.start(command, guard, origin);
  }

  /** As spawn, without the worker's own check of the command: what the sandbox alone lets through. */
  async start(command: string, guard: FileGuard, origin: ShellOrigin = "model"): Promise<ChildProcess> {
    const options = { cwd: this.workDir, detached: true, env: safeEnvironment(), stdio: ["ignore", "pipe", "pipe"] as ["ignore", "pipe", "pipe"] };
    if (!this.info.active) return spawnWatched(command, options);
    const profile = await this.profile(guard, origin);
    const child = spawn(BWRAP, bwrapCommandLine(["bash", "-c", command]), { ...options, stdio: [...options.stdio, "pipe"] });
    const optionsPipe = child.stdio[OPTIONS_FD] as Writable;
    // A bubblewrap that fails before reading its options closes the pipe: its exit says why.
    optionsPipe.on("error", () => undefined);
    optionsPipe.end(optionsData(bwrapOptions(profile, this.workDir, this.mask())));
    // The sandbox's processes end with it: what they made is removed before the result is read.
    if (profile.gitUnmade.length > 0) child.once("exit", () => this.undoGitParts(profile.gitUnmade));
    return child;
  }

  private undoGitParts(paths: readonly string[]): void {
    try {
      const made = removeMade(paths);
      if (made.length > 0) this.log.warn(`a sandboxed command made ${made.join(", ")}, which would decide what git runs; removed`);
    } catch (err) {
      this.log.error(`could not remove what a sandboxed command made in a git directory: ${(err as Error).message}`);
    }
  }

  /**
   * How to start a long-lived process (a stdio MCP server) in the sandbox: bubblewrap with the
   * base profile (a server outlives any one call's rules), `argv` run in `cwd`. Null when the
   * sandbox is not active.
   */
  wrapProcess(argv: readonly string[], cwd: string): { command: string; args: string[] } | null {
    if (!this.info.active) return null;
    return bwrapLauncher(bwrapOptions(this.profiles.base(this.ownSecrets), cwd, this.mask()), argv);
  }

  /** An empty file that no sandboxed process may read, bound over masked files; made again if a cleaner removed it. */
  private mask(): string {
    if (this.emptyFile && fs.existsSync(this.emptyFile)) return this.emptyFile;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-mask-"));
    const file = path.join(dir, "empty");
    fs.writeFileSync(file, "", { mode: 0o000 });
    fs.chmodSync(file, 0o000);
    return (this.emptyFile = file);
  }
}
