import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { silentLog } from "@gatehouse/log";
import { closeClient } from "@gatehouse/protocol";
import { connectNodeClient, trustServer } from "@gatehouse/protocol/node";
import { generate } from "selfsigned";
import { describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/config.js";
import { startServer } from "../../src/transport/server.js";
import { serverTls } from "../../src/transport/tls.js";

const TOKEN = "tls-test-token-000000001";
const pems = () =>
  generate([{ name: "commonName", value: "gatehouse-test" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }],
  });

function files(dir: string, cert: string, key: string) {
  fs.writeFileSync(path.join(dir, "cert.pem"), cert);
  fs.writeFileSync(path.join(dir, "key.pem"), key);
  return { cert: path.join(dir, "cert.pem"), key: path.join(dir, "key.pem") };
}

describe("TLS with the operator's certificate", () => {
  it("serves it, and a client that trusts its CA connects without any pin", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-tls-"));
    const made = await pems();
    const tls = files(dir, made.cert, made.private);
    const config = loadServerConfig(undefined, { port: 0, dataDir: dir, tls, clientTokens: [{ name: "ada", token: TOKEN, role: "admin" }] }, {});
    const server = await startServer(config, { log: silentLog });
    try {
      expect(server.url).toMatch(/^wss:/);
      const client = await connectNodeClient({ url: server.url, token: TOKEN, trust: { ca: made.cert, knownServers: path.join(dir, "never-written") } });
      expect(await client.session.list.query()).toEqual([]);
      await closeClient(client);
      expect(fs.existsSync(path.join(dir, "never-written"))).toBe(false);
      // A CA that did not sign the server's certificate: the connection fails before any call.
      const other = await pems();
      const stranger = await connectNodeClient({ url: server.url, token: TOKEN, retryDelayMs: () => 60_000, trust: { ca: other.cert } });
      await expect(Promise.race([stranger.session.list.query(), new Promise((_, no) => setTimeout(() => no(new Error("no answer")), 1500))])).rejects.toThrow();
      await closeClient(stranger);
    } finally {
      await server.close();
    }
  });

  it("refuses a key that is not the certificate's, and an unreadable file, naming them", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-tls-"));
    const [a, b] = [await pems(), await pems()];
    const mixed = files(dir, a.cert, b.private);
    await expect(serverTls(mixed, "0.0.0.0", dir)).rejects.toThrow(/key does not belong to the certificate/);
    await expect(serverTls({ cert: path.join(dir, "nope.pem"), key: mixed.key }, "0.0.0.0", dir)).rejects.toThrow(/tls\.cert: cannot read .*nope\.pem/);
  });

  it("auto is plain on loopback and self-signed elsewhere, kept across starts", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-tls-"));
    expect(await serverTls("auto", "127.0.0.1", dir)).toBeNull();
    const first = await serverTls("auto", "0.0.0.0", dir);
    expect(first?.selfSigned).toBe(true);
    expect((await serverTls("self-signed", "0.0.0.0", dir))?.fingerprint).toBe(first?.fingerprint);
    expect(fs.statSync(path.join(dir, "tls", "key.pem")).mode & 0o077).toBe(0);
  });
});

describe("clients and plain text", () => {
  it("refuses plain ws:// to another machine unless allowed", async () => {
    await expect(trustServer("ws://10.0.0.5:7420")).rejects.toThrow(/plain text to another machine/);
    await expect(trustServer("ws://10.0.0.5:7420", { allowPlain: true })).resolves.toEqual({});
    await expect(trustServer("ws://127.0.0.1:7420")).resolves.toEqual({});
  });
});
