import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/config.js";
import { ownSecrets } from "../../src/gate/own-secrets.js";

describe("the server's own secrets", () => {
  it("are its data directory, its config file, its store wherever it is kept, its TLS key and the operator's protected paths", () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-own-")));
    const file = path.join(dir, "config.jsonc");
    const config = {
      dataDir: "data",
      store: { kind: "embedded", path: "/srv/store.db" },
      tls: { cert: "/etc/tls/cert.pem", key: "/etc/tls/key.pem" },
      protectedPaths: ["/home/ada/worker"],
    };
    fs.writeFileSync(file, JSON.stringify(config));
    fs.symlinkSync(file, path.join(dir, "link.jsonc"));
    const paths = ownSecrets(loadServerConfig(path.join(dir, "link.jsonc"), {}, {}));
    expect(paths).toEqual(
      expect.arrayContaining([
        path.resolve("data"),
        "/srv/store.db",
        "/srv/store.db-wal",
        "/etc/tls/key.pem",
        "/home/ada/worker",
        path.join(dir, "link.jsonc"),
        file,
      ]),
    );
    // The certificate is public.
    expect(paths).not.toContain("/etc/tls/cert.pem");
  });

  it("include the embedded store's default file through the data directory", () => {
    const paths = ownSecrets(loadServerConfig(undefined, { dataDir: "/var/lib/gh" }, {}));
    expect(paths).toEqual(["/var/lib/gh", "/var/lib/gh/state.db", "/var/lib/gh/state.db-wal", "/var/lib/gh/state.db-shm", "/var/lib/gh/state.db-journal"]);
  });
});
