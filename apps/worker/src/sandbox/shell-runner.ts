import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { silentLog, type Log } from "@gatehouse/log";
import type { Granted, SandboxInfo } from "@gatehouse/protocol";
import { isInside, type Layers } from "@gatehouse/policy";
import type { FileGuard } from "../file-guard.js";
import type { AskRequest } from "../network/ask-link.js";
import { EgressGate, type AskAnswer, type GateOptions } from "../network/egress-gate.js";
import { EgressProxy, type EgressRecord } from "../network/egress-proxy.js";
import { egressBinding, findRelay, type Relay } from "../network/relay-command.js";
import { proxyEnvironment } from "../network/relay-ports.js";
import type { ShellChild } from "../tool.js";
import { bwrapCommandLine, bwrapLauncher, bwrapOptions, feedBubblewrap, type EgressBinding, type OwnPlaces } from "./bwrap-args.js";
import { BWRAP } from "./detect.js";
import { confinedGit } from "./confined-git.js";
import { removeMade, unseenPointers } from "./git-execution-parts.js";
import { removeInside, type Removal } from "./contained-removal.js";
import { disarmGitDirs, madeGitDirs, type Disarmed } from "./made-git-dirs.js";
import { spawnWatched } from "./group-watchdog.js";
import { ProfileBuilder, type SandboxProfile } from "./profile.js";
import { gitSafetyEnvironment } from "./git-safety.js";
import { SteeringLinks, type SteeringLinkTargets } from "../steering-links.js";
import { safeEnvironment } from "./safe-env.js";

export type ShellOrigin = "model" | "person";

/** A long-lived process as the sandbox starts it; through the worker's proxy, its connections so far and those refused. */
export interface WrappedProcess {
  command: string;
  args: string[];
  env?: Record<string, string>;
  connections?(): number;
  refusedSince?(from: number): EgressRecord[];
  /**
   * After each of its calls: removes the parts of git directories that were absent when it started
   * and that it made since, and disarms the git directories it made.
   */
  undoGitParts?(): Promise<void>;
}

/** How commands' connections are judged beyond their rules: the server's addresses, and who answers an ask. */
export interface EgressOptions extends Pick<GateOptions, "floors"> {
  ask?: (request: AskRequest, signal: AbortSignal) => Promise<AskAnswer>;
  /** Told what the rules decided about a call's connection without asking, for the audit log. */
  decided?: (request: AskRequest, allowed: boolean, reason: string) => void;
  /** The rules for processes that outlive calls (MCP servers): the worker's rules file as last received; undefined before any. */
  standingRules?: () => Layers | undefined;
  /** What offers the proxy inside the sandbox; found on the PATH when absent. */
  relay?: Relay;
}

/**
 * Starts shell commands for the worker: inside bubblewrap with a profile derived from the call's
 * rules when the sandbox is active, as plain bash otherwise; always with the safe environment, git's
 * protected settings (a person's commands too) and in a process group of its own, so that killing the group ends the command (and, in the sandbox,
 * its PID namespace with everything it started). A watchdog kills the group if the worker dies
 * first, even while bubblewrap is still setting up.
 */
export class ShellRunner {
  private readonly profiles: ProfileBuilder;
  private readonly links: SteeringLinks;
  private emptyFile: string | null = null;
  private readonly log: Log;
  /** The worker's own secrets: hidden from MCP servers too, which run under no call's guard. */
  private readonly ownSecrets: readonly string[];
  private readonly egress: EgressOptions;
  private readonly relay: Relay;
  /** The proxies of long-lived processes, one per program and folder, kept across its restarts. */
  private readonly standing = new Map<string, EgressProxy>();

  /**
   * With `watch` (the default) the work directory is kept current from change notices rather than
   * a stat of every folder on each call; `log` hears once when it has to fall back to the stat.
   */
  constructor(
    readonly workDir: string,
    readonly info: SandboxInfo,
    options: { log?: Log; watch?: boolean; ownSecrets?: readonly string[]; egress?: EgressOptions } = {},
  ) {
    this.profiles = new ProfileBuilder(workDir, info.network);
    this.links = new SteeringLinks(this.profiles.workTree);
    this.ownSecrets = options.ownSecrets ?? [];
    this.egress = options.egress ?? {};
    this.relay = this.egress.relay ?? findRelay();
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
    for (const proxy of this.standing.values()) proxy.close();
    this.standing.clear();
  }

  /** The work tree's symlinks standing where files of the catalogue are named, and where they lead now. */
  steeringLinks(): Promise<SteeringLinkTargets> {
    return this.links.current();
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

  /**
   * Starts `command`; rejects with ToolRefusedError (from the guard) or SandboxRefusedError before anything
   * runs. `requestId` names the call, for the network asks its connections raise.
   */
  async spawn(command: string, guard: FileGuard, origin: ShellOrigin = "model", granted: Granted = "rules", requestId?: string): Promise<ShellChild> {
    if (origin === "person") return this.start(command, guard, origin, requestId);
    if (!this.info.active) {
      await guard.checkShell(command, granted, undefined, await this.steeringLinks());
      return this.start(command, guard, origin, requestId);
    }
    // The history of the repository, where the command prints from it, is listed by a git confined as the command will be.
    const profile = await this.profile(guard, origin);
    await guard.checkShell(command, granted, confinedGit(profile, this.mask()), await this.steeringLinks());
    return this.run(profile, command, guard, origin, requestId);
  }

  /** As spawn, without the worker's own check of the command: what the sandbox alone lets through. */
  async start(command: string, guard: FileGuard, origin: ShellOrigin = "model", requestId?: string): Promise<ShellChild> {
    return this.run(this.info.active ? await this.profile(guard, origin) : null, command, guard, origin, requestId);
  }

  private async run(profile: SandboxProfile | null, command: string, guard: FileGuard, origin: ShellOrigin, requestId?: string): Promise<ShellChild> {
    const env = { ...safeEnvironment(), ...gitSafetyEnvironment() };
    const options = { cwd: this.workDir, detached: true, env, stdio: ["ignore", "pipe", "pipe"] as ["ignore", "pipe", "pipe"] };
    if (!profile) return spawnWatched(["bash", "-c", command], options);
    if (!this.throughProxy) return this.sandboxed(profile, ["bash", "-c", command], options);
    const ended = new AbortController();
    const proxy = await EgressProxy.open(this.gate(guard, origin, command, requestId, ended.signal), this.log);
    const binding = egressBinding(proxy.socketPath, this.relay);
    const child = this.sandboxed(profile, [...binding.relay, "bash", "-c", command], { ...options, env: { ...options.env, ...proxyEnvironment() } }, binding);
    const close = () => {
      ended.abort();
      proxy.close();
    };
    child.once("close", close);
    child.once("error", close);
    return child;
  }

  /** bubblewrap running `program` under the profile, its options and seccomp filter on descriptors of their own. */
  private sandboxed(
    profile: SandboxProfile,
    program: readonly string[],
    options: { cwd: string; detached: boolean; env: NodeJS.ProcessEnv; stdio: ["ignore", "pipe", "pipe"] },
    egress?: EgressBinding,
  ): ShellChild {
    const child: ShellChild = spawnWatched([BWRAP, ...bwrapCommandLine(program)], { ...options, stdio: [...options.stdio, "pipe", "pipe"] });
    feedBubblewrap(child.stdio, bwrapOptions(profile, this.workDir, this.mask(), egress));
    // The sandbox's processes end with it: what they made in git directories is undone before the result is read.
    child.settled = new Promise((resolve) => {
      const settle = () => void this.afterCommand(profile).then(resolve);
      child.once("exit", settle);
      child.once("error", settle);
    });
    return child;
  }

  /** The rules for one command's connections; its asks go to the server when it belongs to a call. */
  private gate(guard: FileGuard, origin: ShellOrigin, command: string, requestId: string | undefined, ended: AbortSignal): EgressGate {
    const { ask, decided, floors } = this.egress;
    return new EgressGate({
      layers: origin === "person" ? null : guard.context.layers,
      ...(floors ? { floors } : {}),
      ...(ask && requestId ? { ask: (a) => ask({ requestId, command, host: a.target.host, port: a.target.port }, ended) } : {}),
      ...(decided && requestId ? { decided: (t, allowed, reason) => decided({ requestId, command, host: t.host, port: t.port }, allowed, reason) } : {}),
    });
  }

  /** Whether commands reach the network only through the worker's proxy (`--network on`), rather than the host's (`host`) or not at all. */
  private get throughProxy(): boolean {
    return this.info.network && this.info.egress !== "host";
  }

  /**
   * What a command made in git directories, undone: parts absent at its start removed, git
   * directories it made (not among `profile.gitDirs`) disarmed. Says what was done; `profile.gitDirs`
   * becomes the git directories now, for a process whose next call is judged from here.
   */
  private async afterCommand(profile: SandboxProfile): Promise<string[]> {
    this.undoGitParts(profile.gitUnmade);
    if (!profile.gitDirs) return [];
    try {
      const now = await this.profiles.gitDirectories();
      const made = madeGitDirs(now.gitDirs, profile.gitDirs, this.workDir);
      const unseen = unseenPointers(now.pointers, profile.gitPointers, now.gitDirs);
      profile.gitDirs = now.gitDirs;
      profile.gitPointers = now.pointers.filter((p) => !unseen.includes(p));
      const git = confinedGit(profile, this.mask());
      const notes = [...removeInside(this.workDir, unseen).flatMap(pointerNote), ...(await disarmGitDirs(made, git, this.workDir)).flatMap(disarmedNote)];
      for (const note of notes) this.log.warn(note);
      return notes;
    } catch (err) {
      const note = `could not disarm the git directories the command made: ${(err as Error).message}`;
      this.log.error(note);
      return [note];
    }
  }

  private undoGitParts(paths: readonly string[]): void {
    try {
      const done = removeMade(this.workDir, paths);
      const made = done.filter((r) => r.outcome === "removed").map((r) => r.path);
      if (made.length > 0) this.log.warn(`a sandboxed process made ${made.join(", ")}, which would decide what git runs; removed`);
      for (const r of done) if (r.outcome === "refused") this.log.error(`did not remove ${r.path}, which a sandboxed process may have made: ${r.reason}`);
    } catch (err) {
      this.log.error(`could not remove what a sandboxed command made in a git directory: ${(err as Error).message}`);
    }
  }

  /**
   * How to start a long-lived process (a stdio MCP server) in the sandbox: bubblewrap with the
   * standing profile (a server outlives any one call's rules), `argv` run in `cwd`, with `places` of
   * its own. Null when the sandbox is not active.
   */
  async wrapProcess(argv: readonly string[], cwd: string, places?: OwnPlaces): Promise<WrappedProcess | null> {
    if (!this.info.active) return null;
    const profile = ownPlacesShown(await this.profiles.standing(this.ownSecrets), places);
    const undoGitParts = async () => void (await this.afterCommand(profile));
    if (!this.throughProxy) return { ...bwrapLauncher(bwrapOptions(profile, cwd, this.mask(), undefined, places), argv), undoGitParts };
    const key = JSON.stringify([argv, cwd]);
    let proxy = this.standing.get(key);
    if (!proxy) {
      const gate = new EgressGate({ layers: this.egress.standingRules ?? (() => undefined), ...(this.egress.floors ? { floors: this.egress.floors } : {}) });
      this.standing.set(key, (proxy = EgressProxy.openNow(gate, this.log)));
    }
    const binding = egressBinding(proxy.socketPath, this.relay);
    const seen = proxy.records;
    return {
      ...bwrapLauncher(bwrapOptions(profile, cwd, this.mask(), binding, places), [...binding.relay, ...argv]),
      env: proxyEnvironment(),
      connections: () => seen.length,
      refusedSince: (from) => seen.slice(from).filter((r) => !r.allowed),
      undoGitParts,
    };
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

/** What was taken from a git directory a command made, for the log and the call's result; nothing when nothing was. */
function disarmedNote(d: Disarmed): string[] {
  if (d.refused) return [`a git directory the command made, ${d.gitDir}, was left as it is: ${d.refused}`];
  const taken = [...d.settings, ...d.removed];
  if (taken.length === 0) return [];
  return [`a git directory the command made, ${d.gitDir}, keeps only settings that cannot run a program: removed ${taken.join(", ")}`];
}

/** What became of a pointer the command made to a git directory that is neither read-only nor disarmed. */
function pointerNote(r: Removal): string[] {
  if (r.outcome === "removed")
    return [
      `the command made ${r.path}, which names a git directory the sandbox cannot keep read-only or disarm (too deep, outside the work directory, through a symlink, or missing); removed`,
    ];
  if (r.outcome === "refused")
    return [`the command made ${r.path}, which names a git directory the sandbox cannot disarm, and it could not be removed: ${r.reason}`];
  return [];
}

/** A process's own writable places stay in view when a protected path holds them (a server's cache, among the worker's own secrets). */
function ownPlacesShown(profile: SandboxProfile, places: OwnPlaces | undefined): SandboxProfile {
  const own = places?.writable ?? [];
  if (own.length === 0) return profile;
  return { ...profile, hidden: profile.hidden.filter((h) => !own.some((w) => isInside(w, h.path))) };
}
