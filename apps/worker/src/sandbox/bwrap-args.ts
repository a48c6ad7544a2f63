import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Mask, SandboxProfile } from "./profile.js";

/** Namespaces and limits every sandboxed command gets. */
const ISOLATION = ["--unshare-pid", "--unshare-ipc", "--new-session", "--die-with-parent", "--cap-drop", "ALL"];

function mask(m: Mask, emptyFile: string): string[] {
  return m.dir ? ["--perms", "0000", "--tmpfs", m.path, "--remount-ro", m.path] : ["--ro-bind", emptyFile, m.path];
}

/**
 * bubblewrap's arguments for one command: the host read-only, the work directory writable, a
 * private /tmp, then pinned folders, read-only binds, masks and hidden paths on top, in that order, so a mask
 * inside a read-only folder still applies. `emptyFile` is an empty file nobody may read, bound
 * over masked files.
 */
export function bwrapArguments(profile: SandboxProfile, command: string, emptyFile: string): string[] {
  return [...confinement(profile, emptyFile), "--chdir", profile.workDir, "--", "bash", "-c", command];
}

/** The same confinement for a program started directly, with no shell in between (an MCP server). */
export function bwrapProgramArguments(profile: SandboxProfile, argv: readonly string[], cwd: string, emptyFile: string): string[] {
  return [...confinement(profile, emptyFile), "--chdir", cwd, "--", ...argv];
}

/**
 * Gatehouse's own installation when it lies under /tmp (a checkout in a temporary folder): the
 * private /tmp would hide it, and with it what MCP servers and tools run from. Visible read-only,
 * as it is anywhere else on the host.
 */
const INSTALL_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const UNDER_TMP = INSTALL_ROOT.startsWith("/tmp/") ? [INSTALL_ROOT] : [];

function confinement(profile: SandboxProfile, emptyFile: string): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const p of UNDER_TMP) args.push("--ro-bind", p, p);
  args.push("--bind", profile.workDir, profile.workDir);
  for (const p of profile.pinned) args.push("--bind", p, p);
  for (const p of profile.readOnly) args.push("--ro-bind", p, p);
  for (const m of profile.masked) args.push(...mask(m, emptyFile));
  for (const m of profile.hidden) args.push(...mask(m, emptyFile));
  args.push(...ISOLATION);
  if (!profile.network) args.push("--unshare-net");
  return args;
}
