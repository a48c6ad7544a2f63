import fs from "node:fs";
import path from "node:path";
import type { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { BWRAP } from "./detect.js";
import { procOptions } from "./proc-options.js";
import { hostSockets, SOCKET_FOLDERS } from "./host-sockets.js";
import type { Mask, SandboxProfile } from "./profile.js";
import { keyringFilter } from "./seccomp-filter.js";

/**
 * A command's way out through the worker's proxy: its own network namespace, the proxy's socket
 * bound at `inside`, and the relay program that offers it on a loopback port and then runs the command.
 */
export interface EgressBinding {
  socket: string;
  inside: string;
  relay: readonly string[];
}

/**
 * Namespaces and limits every sandboxed command gets. No `--new-session`: bubblewrap's init then
 * stays in the process group the worker kills at the end of a call, and killing it ends the PID
 * namespace with everything in it; the session of its own (no terminal) comes from the start.
 */
const ISOLATION = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--cap-drop", "ALL"];

/** What /proc tells of the user's kernel keys (their names): masked, as the keyring's calls are refused (seccomp-filter.ts). */
const KERNEL_KEYS = ["/proc/keys", "/proc/key-users"];

function mask(m: Mask, emptyFile: string): string[] {
  return m.dir ? ["--perms", "0000", "--tmpfs", m.path, "--remount-ro", m.path] : ["--ro-bind", emptyFile, m.path];
}

/**
 * bubblewrap's options for one command: the host read-only, the work directory writable, a
 * private /tmp, then pinned folders, read-only binds, masks and hidden paths on top, in that order, so a mask
 * inside a read-only folder still applies. `emptyFile` is an empty file nobody may read, bound
 * over masked files. They are handed to bubblewrap on a descriptor (`--args`), never on its
 * command line, which every process in the sandbox could read at /proc/1/cmdline.
 */
export function bwrapOptions(profile: SandboxProfile, cwd: string, emptyFile: string, egress?: EgressBinding, places?: OwnPlaces): string[] {
  return [...confinement(profile, emptyFile, egress, places), "--chdir", cwd];
}

/**
 * A read-only view of what a command under `profile` sees, for the worker's own programs that read
 * the repository: the same masks and hidden paths, nothing writable but a private /tmp, no network.
 */
export function readOnlyOptions(profile: SandboxProfile, emptyFile: string): string[] {
  const view = { ...profile, network: false, pinned: [], readOnly: [] };
  return [...confinement(view, emptyFile, undefined, undefined, "--ro-bind"), "--chdir", profile.workDir];
}

/**
 * Places of a long-lived process's own (an MCP server's): folders it may write besides the work
 * directory (its cache), and paths it names that the private /tmp would hide (its program, its script).
 */
export interface OwnPlaces {
  writable: readonly string[];
  visible: readonly string[];
}

/** The descriptor bubblewrap reads its options from. */
export const OPTIONS_FD = 3;

/** The descriptor bubblewrap reads the seccomp filter from (the watchdog's own is 4). */
export const FILTER_FD = 5;

/** What bubblewrap reads on its descriptors: the options on OPTIONS_FD, the seccomp filter on FILTER_FD. */
export function feedBubblewrap(stdio: readonly unknown[], options: readonly string[]): void {
  const inputs: [number, Buffer][] = [
    [OPTIONS_FD, optionsData(options)],
    [FILTER_FD, keyringFilter()],
  ];
  for (const [fd, data] of inputs) {
    const pipe = stdio[fd] as Writable;
    // A bubblewrap that fails before reading its input closes the pipe: its exit says why.
    pipe.on("error", () => undefined);
    pipe.end(data);
  }
}

/** bubblewrap's command line: only the program it runs; the options come on OPTIONS_FD. */
export function bwrapCommandLine(program: readonly string[]): string[] {
  return ["--args", String(OPTIONS_FD), "--", ...program];
}

/** The options as `--args` reads them: each ended by a NUL. */
export function optionsData(options: readonly string[]): Buffer {
  return Buffer.from(options.map((o) => `${o}\0`).join(""));
}

/**
 * The same for a caller that can only start a program with arguments (an MCP server's launcher):
 * bash writes the options to OPTIONS_FD and becomes bubblewrap, adding nothing to its
 * environment, so inside the sandbox only `bwrap --args 3 -- PROGRAM` shows.
 */
export function bwrapLauncher(options: readonly string[], program: readonly string[]): { command: string; args: string[] } {
  const n = options.length;
  const filter = [...keyringFilter()].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("");
  const script = [
    `exec env -u SHLVL ${BWRAP} --args ${OPTIONS_FD} -- "\${@:${n + 1}}"`,
    `${OPTIONS_FD}< <(printf '%s\\0' "\${@:1:${n}}") ${FILTER_FD}< <(printf '${filter}')`,
  ].join(" ");
  // No startup files: bash reads ~/.bashrc even with -c when its input is a socket, as a launcher's pipes are.
  return { command: "bash", args: ["--norc", "--noprofile", "-c", script, "gatehouse-sandbox", ...options, ...program] };
}

/**
 * Gatehouse's own installation when it lies under /tmp (a checkout in a temporary folder): the
 * private /tmp would hide it, and with it what MCP servers and tools run from. Visible read-only,
 * as it is anywhere else on the host.
 */
const INSTALL_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const UNDER_TMP = INSTALL_ROOT.startsWith("/tmp/") ? [INSTALL_ROOT] : [];

function confinement(profile: SandboxProfile, emptyFile: string, egress?: EgressBinding, places?: OwnPlaces, workDirBind = "--bind"): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", ...procOptions(), "--tmpfs", "/tmp"];
  for (const k of KERNEL_KEYS) if (fs.existsSync(k)) args.push("--ro-bind", emptyFile, k);
  for (const f of SOCKET_FOLDERS) if (fs.existsSync(f)) args.push("--tmpfs", f);
  const shown = [...UNDER_TMP, ...(places?.visible ?? [])];
  for (const p of shown) args.push("--ro-bind", p, p);
  args.push(workDirBind, profile.workDir, profile.workDir);
  for (const p of places?.writable ?? []) args.push("--bind", p, p);
  for (const p of profile.pinned) args.push("--bind", p, p);
  for (const p of profile.readOnly) args.push("--ro-bind", p, p);
  // Before the masks: a socket inside a masked folder is gone with it, and its mount point could not be made there.
  for (const s of hostSockets([...shown, profile.workDir, ...(places?.writable ?? [])])) args.push("--ro-bind", emptyFile, s);
  for (const m of profile.masked) args.push(...mask(m, emptyFile));
  for (const m of profile.hidden) args.push(...mask(m, emptyFile));
  args.push(...ISOLATION, "--seccomp", String(FILTER_FD));
  if (egress) args.push("--unshare-net", "--bind", egress.socket, egress.inside);
  else if (!profile.network) args.push("--unshare-net");
  return args;
}
