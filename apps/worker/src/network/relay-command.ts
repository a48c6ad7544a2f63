import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { EgressBinding } from "../sandbox/bwrap-args.js";
import { RELAY_PORT, SANDBOX_SOCKET } from "./relay-ports.js";

/** What offers the proxy inside the sandbox: socat where the host has it (a few ms to start), else a Node program (tens of ms). */
export type Relay = { kind: "socat"; program: string } | { kind: "node" };

// From the package root, so that the same path serves the built worker and its sources run by the tests.
const RELAY_SCRIPT = fileURLToPath(new URL("../../dist/network/inside-relay.js", import.meta.url));

/** socat on the worker's PATH, else the Node relay. */
export function findRelay(pathVariable = process.env.PATH ?? ""): Relay {
  for (const dir of pathVariable.split(":")) {
    if (!dir.startsWith("/")) continue;
    const program = path.join(dir, "socat");
    try {
      fs.accessSync(program, fs.constants.X_OK);
      return { kind: "socat", program };
    } catch {
      // not here
    }
  }
  return { kind: "node" };
}

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");
const LISTENING = (port: number) => `:${hexPort(port)} 00000000:0000 0A`;

/**
 * A bash preamble that starts socat listening on the relay port, waits (at most 5 s, a
 * millisecond's sleep between looks, so that socat gets the CPU on a busy machine) until the
 * kernel lists the port as listening, and then runs the command in its place, without the
 * SHLVL that bash adds.
 */
function socatPreamble(program: string): string {
  return [
    `'${program}' -lf /dev/null TCP-LISTEN:${RELAY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${SANDBOX_SOCKET} </dev/null >/dev/null 2>&1 &`,
    `until=$(( \${EPOCHREALTIME//[.,]/} + 5000000 ))`,
    `while (( \${EPOCHREALTIME//[.,]/} < until )); do`,
    `  IFS= read -r -d '' t < /proc/net/tcp`,
    `  [[ $t == *"${LISTENING(RELAY_PORT)}"* ]] && exec env -u SHLVL "$@"`,
    `  sleep 0.001`,
    `done`,
    `echo "gatehouse: the network relay did not start in the sandbox" >&2`,
    `exit 126`,
  ].join("\n");
}

/** How a sandboxed command reaches the proxy listening on `socket`. */
export function egressBinding(socket: string, relay: Relay): EgressBinding {
  // --norc: bash reads ~/.bashrc when its stdin is a socket (an MCP server's is), as if sshd ran it.
  const start =
    relay.kind === "socat" ? ["bash", "--norc", "-c", socatPreamble(relay.program), "gatehouse-relay"] : [process.execPath, RELAY_SCRIPT, SANDBOX_SOCKET, "--"];
  return { socket, inside: SANDBOX_SOCKET, relay: start };
}
