import { OWN_GIT_ARGS, runOwnGit, type GitRunner } from "../own-git.js";
import { bwrapCommandLine, feedBubblewrap, readOnlyOptions } from "./bwrap-args.js";
import { BWRAP } from "./detect.js";
import type { SandboxProfile } from "./profile.js";

/**
 * The worker's own git in bubblewrap, seeing what a command under `profile` sees, read-only and
 * without a network: whatever program the repository's settings name (a `gpg.program` for
 * `log.showSignature`, a `core.fsmonitor`, a textconv) runs confined, writes nothing and reads no
 * file the rules deny. The options and the seccomp filter come on descriptors bubblewrap reads
 * whole before git starts.
 */
export function confinedGit(profile: SandboxProfile, emptyFile: string): GitRunner {
  const options = readOnlyOptions(profile, emptyFile);
  return (args) => runOwnGit([BWRAP, ...bwrapCommandLine(["git", ...OWN_GIT_ARGS, ...args])], profile.workDir, (stdio) => feedBubblewrap(stdio, options));
}
