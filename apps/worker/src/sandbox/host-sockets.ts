import fs from "node:fs";
import { isInside } from "@gatehouse/policy";
import { PRIVATE_ROOTS } from "./masks.js";

/** An entry of the kernel's table: seven fields, then the path when the socket has one. */
const ENTRY = /^\s*\S+:\s+(?:\S+\s+){5}\S+ (.+)$/;

/**
 * Folders that hold the sockets of a person's session (systemd's user bus, gpg and ssh agents,
 * podman, Wayland): hidden whole, so that a socket made there after a command starts is out of
 * its reach too.
 */
export const SOCKET_FOLDERS = ["/run/user"];

/**
 * The host's Unix sockets bound at a path, as the kernel lists them now (`/proc/net/unix`, this
 * network namespace), each still a socket at its real path, outside the sandbox's private roots
 * and SOCKET_FOLDERS but in `shown` (folders the sandbox binds from the host, as the work
 * directory, which may lie under /tmp). A read-only mount does not stop connect() or sendto() on a socket, and a
 * network namespace covers only abstract sockets: the sandbox binds an empty file over each of
 * these, so that a command reaches no host service through one (docker.sock, a database's
 * socket, an agent). Sockets bound by relative paths cannot be placed and are left out.
 */
export function hostSockets(shown: readonly string[], table = "/proc/net/unix"): string[] {
  const found = new Set<string>();
  for (const named of boundPaths(fs.readFileSync(table, "utf8"))) {
    const real = socketAt(named);
    if (real && !hidden(real, shown)) found.add(real);
  }
  return [...found];
}

/** The path column of each entry (the eighth; it may hold spaces), absolute ones only: "@" starts an abstract name. */
function boundPaths(table: string): string[] {
  const paths: string[] = [];
  for (const line of table.split("\n")) {
    const named = ENTRY.exec(line)?.[1];
    if (named?.startsWith("/")) paths.push(named);
  }
  return paths;
}

/** The real path of `named` when a socket is there now (the table keeps the names of sockets whose file was removed). */
function socketAt(named: string): string | null {
  try {
    const real = fs.realpathSync(named);
    const st = fs.lstatSync(real);
    return st.isSocket() && writable(st) ? real : null;
  } catch {
    return null;
  }
}

/**
 * Whether the worker's user could connect to a socket of this owner and mode without any
 * capability (a sandboxed command has none): connect() needs write permission on the socket.
 * Each socket masked is a mount that bubblewrap pays for at every start, so those the user
 * cannot write need none.
 */
function writable(st: fs.Stats): boolean {
  if (st.uid === process.getuid!()) return (st.mode & 0o200) !== 0;
  if (st.gid === process.getgid!() || process.getgroups!().includes(st.gid)) return (st.mode & 0o020) !== 0;
  return (st.mode & 0o002) !== 0;
}

function hidden(real: string, shown: readonly string[]): boolean {
  if (SOCKET_FOLDERS.some((f) => isInside(real, f))) return true;
  return PRIVATE_ROOTS.some((root) => isInside(real, root)) && !shown.some((s) => isInside(real, s));
}
