import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defaultKnownServersFile } from "@gatehouse/protocol/node";
import { describe, expect, it } from "vitest";
import { serverCachesRoot } from "../src/mcp/launch.js";
import { ownSecretPaths, withOwnSecrets } from "../src/own-secrets.js";

describe("the worker's own secrets", () => {
  it("are Gatehouse's home folder, the known-servers file, the MCP servers' caches and the named paths, as written and where symlinks lead", () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-own-")));
    fs.writeFileSync(path.join(dir, "token"), "t\n");
    fs.symlinkSync(path.join(dir, "token"), path.join(dir, "token-link"));
    const paths = ownSecretPaths([path.join(dir, "token-link"), "relative.jsonc"], { knownServers: path.join(dir, "pins") });
    expect(paths).toEqual([
      path.join(dir, "token-link"),
      path.join(dir, "token"),
      path.resolve("relative.jsonc"),
      path.join(os.homedir(), ".gatehouse"),
      path.join(dir, "pins"),
      serverCachesRoot(),
    ]);
    expect(ownSecretPaths([], undefined)).toContain(path.resolve(defaultKnownServersFile()));
  });

  it("join the protected paths of every call's guard", () => {
    const guard = { agent: null, static: [], runtime: [], protectedPaths: ["/srv/gatehouse"] };
    expect(withOwnSecrets(guard, ["/home/ada/.gatehouse", "/srv/gatehouse"]).protectedPaths).toEqual(["/srv/gatehouse", "/home/ada/.gatehouse"]);
    expect(withOwnSecrets(guard, [])).toBe(guard);
  });
});
