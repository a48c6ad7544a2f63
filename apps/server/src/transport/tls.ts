import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { TlsSetting } from "../config/index.js";
import { GatehouseError } from "../errors.js";

export interface ServerTls {
  key: string;
  cert: string;
  /** SHA-256 of the certificate, colon-separated hex: what clients pin. */
  fingerprint: string;
  /** Where the certificate came from: the operator's file or the one generated into the data directory. */
  certFile: string;
  selfSigned: boolean;
}

/** Whether a listening host is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function fingerprintOf(certPem: string): string {
  return new crypto.X509Certificate(certPem).fingerprint256;
}

function readPem(file: string, what: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new GatehouseError("CONFIG", `tls.${what}: cannot read ${file}: ${(err as Error).message}`);
  }
}

/** The operator's certificate and key, checked to be a pair. */
function given(setting: { cert: string; key: string }): ServerTls {
  const cert = readPem(setting.cert, "cert");
  const key = readPem(setting.key, "key");
  try {
    const x509 = new crypto.X509Certificate(cert);
    if (!x509.checkPrivateKey(crypto.createPrivateKey(key))) throw new Error("the key does not belong to the certificate");
    return { cert, key, fingerprint: x509.fingerprint256, certFile: setting.cert, selfSigned: false };
  } catch (err) {
    throw new GatehouseError("CONFIG", `tls: ${setting.cert} and ${setting.key}: ${(err as Error).message}`);
  }
}

/** The self-signed certificate in `{dataDir}/tls`, generated on first start and kept after. */
async function selfSigned(dataDir: string, host: string): Promise<ServerTls> {
  const dir = path.join(dataDir, "tls");
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  if (!fs.existsSync(certFile) || !fs.existsSync(keyFile)) {
    const notBeforeDate = new Date();
    const notAfterDate = new Date(notBeforeDate.getTime() + 10 * 365 * 24 * 3600 * 1000);
    const wildcard = isLoopback(host) || host === "0.0.0.0" || host === "::";
    const altNames = [
      { type: 2 as const, value: "localhost" },
      { type: 7 as const, ip: "127.0.0.1" },
      ...(wildcard ? [] : [{ type: 2 as const, value: host }]),
    ];
    // Loaded here: it is slow to load, and most starts have a certificate already or no TLS.
    const { generate } = await import("selfsigned");
    const pems = await generate([{ name: "commonName", value: "gatehouse" }], {
      keyType: "ec",
      algorithm: "sha256",
      notBeforeDate,
      notAfterDate,
      extensions: [{ name: "subjectAltName", altNames }],
    });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(keyFile, pems.private, { mode: 0o600 });
    fs.writeFileSync(certFile, pems.cert);
  }
  const cert = fs.readFileSync(certFile, "utf8");
  return { cert, key: fs.readFileSync(keyFile, "utf8"), fingerprint: fingerprintOf(cert), certFile, selfSigned: true };
}

/** What the server serves: TLS with a given or self-signed certificate, or plain (null) where that is allowed. */
export async function serverTls(setting: TlsSetting, host: string, dataDir: string): Promise<ServerTls | null> {
  if (typeof setting === "object") return given(setting);
  if (setting === "off" || (setting === "auto" && isLoopback(host))) return null;
  return selfSigned(dataDir, host);
}
