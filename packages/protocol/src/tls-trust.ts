import type { PeerCertificate } from "node:tls";
import tls from "node:tls";
import { TrustError } from "./errors.js";
import { KnownServers, normalizeFingerprint } from "./known-servers.js";

/** How a client decides to trust a server it reaches over TLS. */
export interface TrustOptions {
  /** CA certificates (PEM) to verify the server by, with its host name; no pinning then. */
  ca?: string | undefined;
  /** A fingerprint to require, instead of the one in the known-servers file. */
  fingerprint?: string | undefined;
  /** The known-servers file (default: GATEHOUSE_KNOWN_SERVERS, or ~/.gatehouse/known_servers). */
  knownServers?: string | undefined;
  /** Plain ws:// to a host other than loopback (tokens then cross the network in clear). */
  allowPlain?: boolean | undefined;
  /** Told when a server's certificate is trusted for the first time and remembered. */
  onFirstUse?: ((server: string, fingerprint: string, file: string) => void) | undefined;
  timeoutMs?: number | undefined;
}

/** What to hand the TLS connection: the pinned certificate as its only CA, and the pin checked again. */
export interface TlsClientOptions {
  ca?: string;
  checkServerIdentity?: (host: string, cert: PeerCertificate) => Error | undefined;
}

function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

interface Presented {
  authorized: boolean;
  fingerprint: string;
  pem: string;
}

/** Connects once without verifying, only to read the certificate the server presents. */
function presented(host: string, port: number, timeoutMs: number): Promise<Presented> {
  return new Promise((resolve, reject) => {
    const servername = /^[\d.]+$|:/.test(host) ? undefined : host;
    const socket = tls.connect({ host, port, rejectUnauthorized: false, ...(servername ? { servername } : {}) });
    const timer = setTimeout(() => socket.destroy(new Error(`no TLS answer within ${timeoutMs} ms`)), timeoutMs);
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      const cert = socket.getPeerCertificate(false);
      const pem = `-----BEGIN CERTIFICATE-----\n${cert.raw
        .toString("base64")
        .match(/.{1,64}/g)!
        .join("\n")}\n-----END CERTIFICATE-----\n`;
      resolve({ authorized: socket.authorized, fingerprint: cert.fingerprint256, pem });
      socket.end();
    });
    socket.once("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === "ERR_SSL_WRONG_VERSION_NUMBER") {
        reject(
          new TrustError("NOT_TLS", `${host}:${port} answers in plain text, not TLS: use ws:// instead of wss:// (or start the server with --tls self-signed)`),
        );
      } else reject(new TrustError("UNREACHABLE", `cannot reach ${host}:${port} over TLS: ${err.message}`));
    });
  });
}

/**
 * Whether the server at a ws:// address speaks TLS, which would end the plain connection without
 * a word: a TLS handshake that completes says so. Anything else (plain text, no server) is left to
 * the connection itself to report.
 */
function speaksTls(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host, port, rejectUnauthorized: false });
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("secureConnect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * Decides whether to trust the server at a ws:// or wss:// address before any token is sent:
 * by the given CA, by the public CAs when its certificate verifies, or else by its fingerprint,
 * pinned on first use in the known-servers file. A fingerprint that differs from the pinned one
 * is refused with both fingerprints and where the pin lives.
 */
export async function trustServer(url: string, opts: TrustOptions = {}): Promise<TlsClientOptions> {
  const u = new URL(url);
  if (u.protocol === "ws:" || u.protocol === "http:") {
    if (!isLoopbackHost(u.hostname) && !opts.allowPlain) {
      throw new TrustError(
        "PLAIN_TEXT",
        `${url} is plain text to another machine: the token would cross the network in clear; use wss:// (or allow plain text explicitly)`,
      );
    }
    // A server on this machine that speaks TLS would end a plain connection without a word: one
    // handshake tells. Another machine is reached in plain text only when allowed explicitly, and
    // then nothing but the connection itself is sent to it.
    if (!isLoopbackHost(u.hostname)) return {};
    const host = u.hostname.replace(/^\[|\]$/g, "");
    const port = Number(u.port || 80);
    if (await speaksTls(host, port, opts.timeoutMs ?? 5000))
      throw new TrustError("SPEAKS_TLS", `${u.hostname}:${port} speaks TLS: use wss:// instead of ws://`);
    return {};
  }
  if (opts.ca) return { ca: opts.ca };
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const port = Number(u.port || 443);
  const server = `${u.hostname}:${port}`;
  const seen = await presented(host, port, opts.timeoutMs ?? 5000);
  const known = new KnownServers(opts.knownServers);
  let pinned: string;
  if (opts.fingerprint) {
    pinned = normalizeFingerprint(opts.fingerprint);
    if (pinned !== seen.fingerprint)
      throw new TrustError(
        "FINGERPRINT_MISMATCH",
        `the server ${server} presents the certificate ${seen.fingerprint}, not the fingerprint given (${pinned}): not connecting`,
      );
  } else {
    const entry = known.lookup(server);
    if (!entry && seen.authorized) return {};
    if (entry && entry.fingerprint !== seen.fingerprint) {
      throw new TrustError(
        "CERTIFICATE_CHANGED",
        `the certificate of ${server} has changed: ${known.file}:${entry.line} pins ${entry.fingerprint}, the server now presents ${seen.fingerprint}. ` +
          `Not connecting. If the server's certificate was replaced on purpose, delete that line and connect again.`,
      );
    }
    if (!entry) {
      known.remember(server, seen.fingerprint);
      opts.onFirstUse?.(server, seen.fingerprint, known.file);
    }
    pinned = seen.fingerprint;
  }
  return {
    ca: seen.pem,
    checkServerIdentity: (_host, cert) =>
      cert.fingerprint256 === pinned
        ? undefined
        : new TrustError("FINGERPRINT_MISMATCH", `the server ${server} presented a certificate other than the pinned one`),
  };
}
