import { killGroup } from "./process-group.js";
import { spawnWatched } from "./sandbox/group-watchdog.js";
import { gitSafetyEnvironment } from "./sandbox/git-safety.js";
import { safeEnvironment } from "./sandbox/safe-env.js";

/**
 * How one run of the worker's own git ended: `status` null when it did not exit on its own, and
 * then `failure` says why (its deadline, a signal, too much output, or it could not start).
 */
export interface GitRun {
  status: number | null;
  stdout: string;
  stderr: string;
  failure?: string;
}

/** Runs git in the work directory for the worker's own checks, without waiting on the event loop. */
export type GitRunner = (args: readonly string[]) => Promise<GitRun>;

/** What git printed, or null when it failed or took too long. */
export function output(run: GitRun): string | null {
  return run.status === 0 ? run.stdout : null;
}

/** Why a run of `git <command>` gave nothing to read, in words: how it ended and the first line git said. */
export function gitFailure(command: string, run: GitRun): string {
  const said = run.stderr.trim().split("\n")[0];
  const ended = run.failure ?? `exited with status ${run.status}`;
  return `git ${command} ${ended}${said ? `: ${said}` : ""}`;
}

/** Past this the worker does not wait for its own git. */
const OWN_GIT_TIMEOUT_MS = 5_000;
const OWN_GIT_MAX_OUTPUT = 256 * 1024 * 1024;

/**
 * Settings of the repository known to run a program, overridden on the command line, which wins
 * over every file. A list cannot be complete (a program reads what its own manual says), so in the
 * sandbox the worker's git also runs confined; with the sandbox off this is the whole defence.
 */
const OVERRIDES = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.sshCommand=false",
  "core.askPass=false",
  "core.alternateRefsCommand=false",
  "credential.helper=",
  "log.showSignature=false",
  "gpg.program=false",
  "gpg.ssh.program=false",
  "gpg.x509.program=false",
  "protocol.allow=never",
];

/** git's arguments before the command's own: the overrides, and no pager. */
export const OWN_GIT_ARGS: readonly string[] = [...OVERRIDES.flatMap((o) => ["-c", o]), "--no-pager"];

/**
 * The environment of the worker's own git: the safe list, git's protected settings, no system or
 * user settings, no lazy fetch of missing objects (a partial clone's remote would run), no prompt.
 */
export function ownGitEnvironment(): NodeJS.ProcessEnv {
  return {
    ...safeEnvironment(),
    ...gitSafetyEnvironment(),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_NO_LAZY_FETCH: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    // Its messages in English: "not a git repository" is read from them.
    LC_ALL: "C",
  };
}

/** git run directly in `workDir`, as hardened as git allows: what runs when the sandbox is off. */
export function hostGit(workDir: string, deadlineMs?: number): GitRunner {
  return (args) => runOwnGit(["git", ...OWN_GIT_ARGS, ...args], workDir, undefined, deadlineMs);
}

/**
 * Runs `argv` (git, or what confines it) with git's environment above, bounded in time and output.
 * Past `deadlineMs` its process group is killed and the run ends then, whatever still holds its pipes.
 */
export function runOwnGit(argv: readonly string[], cwd: string, feed?: (stdio: readonly unknown[]) => void, deadlineMs = OWN_GIT_TIMEOUT_MS): Promise<GitRun> {
  return new Promise((resolve) => {
    // Behind the watchdog: what git or a program the repository names starts ends with the run, or with the worker.
    const child = spawnWatched(argv, { cwd, env: ownGitEnvironment(), stdio: feed ? ["ignore", "pipe", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"] });
    const stdout = new BoundedText();
    const stderr = new BoundedText();
    let done = false;
    const end = (status: number | null, failure?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (failure) killGroup(child.pid);
      child.stdout!.destroy();
      child.stderr!.destroy();
      resolve({ status: failure ? null : status, stdout: stdout.text(), stderr: stderr.text(), ...(failure ? { failure } : {}) });
    };
    const timer = setTimeout(() => end(null, `did not finish within ${deadlineMs} ms`), deadlineMs);
    const over = () => end(null, `printed more than ${OWN_GIT_MAX_OUTPUT} bytes`);
    child.stdout!.on("data", (d: Buffer) => stdout.add(d) || over());
    child.stderr!.on("data", (d: Buffer) => stderr.add(d) || over());
    child.on("error", (err) => end(null, `could not start: ${err.message}`));
    child.on("close", (status, signal) => end(status, signal ? `was killed by ${signal}` : notStarted(status, stderr.text())));
    feed?.(child.stdio);
  });
}

/** The watchdog's shell says so when the program it would become cannot be run (126, 127). */
function notStarted(status: number | null, stderr: string): string | undefined {
  const said = /^gatehouse-watchdog: \d+: exec: (.*)$/m.exec(stderr);
  return (status === 126 || status === 127) && said ? `could not start: ${said[1]}` : undefined;
}

/** Text gathered from a pipe up to OWN_GIT_MAX_OUTPUT bytes. */
class BoundedText {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  /** False once more than the bound came. */
  add(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.size > OWN_GIT_MAX_OUTPUT) return false;
    this.chunks.push(chunk);
    return true;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
