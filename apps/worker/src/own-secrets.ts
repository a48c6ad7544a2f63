import os from "node:os";
import path from "node:path";
import { resolveRealPath } from "@gatehouse/fs-guard";
import type { Guard } from "@gatehouse/protocol";
import { defaultKnownServersFile, type TrustOptions } from "@gatehouse/protocol/node";
import { serverCachesRoot } from "./mcp/launch.js";

/**
 * The worker's own secrets, which no tool reads or writes whatever the server's rules say:
 * Gatehouse's folder in the home directory (the default data directory, known servers and bot
 * state), the known-servers file, the MCP servers' caches (code there runs with a server's
 * secrets), and the paths its operator names (the token file, the MCP
 * config, `--protect`). Each as written and where symlinks lead, so that both spellings are caught.
 */
export function ownSecretPaths(named: readonly string[], trust: TrustOptions | undefined): string[] {
  const defaults = [path.join(os.homedir(), ".gatehouse"), trust?.knownServers ?? defaultKnownServersFile(), serverCachesRoot()];
  const paths = [...named, ...defaults].map((p) => path.resolve(p));
  return [...new Set(paths.flatMap((p) => [p, resolveRealPath(p)]))];
}

/** A call's guard with the worker's own secrets added to the server's protected paths. */
export function withOwnSecrets(guard: Guard, own: readonly string[]): Guard {
  if (own.length === 0) return guard;
  return { ...guard, protectedPaths: [...new Set([...guard.protectedPaths, ...own])] };
}
