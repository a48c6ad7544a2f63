import { spawnSync } from "node:child_process";
import { gitSafetyEnvironment } from "./sandbox/git-safety.js";
import { safeEnvironment } from "./sandbox/safe-env.js";

/** How one run of the worker's own git ended (status null: killed, or it could not start). */
export interface GitRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs git in the work directory for the worker's own checks. */
export type GitRunner = (args: readonly string[]) => GitRun;

/** What git printed, or null when it failed or took too long. */
export function output(run: GitRun): string | null {
  return run.status === 0 ? run.stdout : null;
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
export function hostGit(workDir: string): GitRunner {
  return (args) => runOwnGit(["git", ...OWN_GIT_ARGS, ...args], workDir);
}

/** Runs `argv` (git, or what confines it) with git's environment above, bounded in time and output. */
export function runOwnGit(argv: readonly string[], cwd: string, input?: Buffer): GitRun {
  const r = spawnSync(argv[0]!, argv.slice(1), {
    cwd,
    ...(input ? { input } : { stdio: ["ignore", "pipe", "pipe"] }),
    env: ownGitEnvironment(),
    encoding: "utf8",
    timeout: OWN_GIT_TIMEOUT_MS,
    killSignal: "SIGKILL",
    maxBuffer: OWN_GIT_MAX_OUTPUT,
  });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}
