import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".map": "application/json",
};

/**
 * The console talks only to the server that served it, runs only its own script, and may not be
 * framed: a page that holds a token and answers the gate must not be scripted or clickjacked.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "Content-Security-Policy": CONSOLE_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
};

/** Where the console's built files are: the `dist` folder of the web package. */
export function consoleRoot(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve("@gatehouse/web/package.json");
    return path.join(path.dirname(pkg), "dist");
  } catch {
    return null;
  }
}

/**
 * Serves the browser console: `/` is its page, `/assets/...` its scripts and styles (named by
 * content hash, so cached for good); everything else falls through to the protocol.
 * Returns whether it answered the request.
 */
export function createConsoleHandler(root: string | null = consoleRoot()): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const url = new URL(req.url ?? "/", "http://localhost");
    const isPage = url.pathname === "/" || url.pathname === "/index.html";
    if (!isPage && !url.pathname.startsWith("/assets/")) return false;
    if (!root) return send(res, req, 503, "text/plain; charset=utf-8", "the web console is not built: run scripts/bootstrap\n", "no-store");
    const rel = isPage ? "index.html" : safeDecode(url.pathname.slice(1));
    const file = rel === null ? "" : path.join(root, rel);
    if (rel === null || !file.startsWith(root + path.sep) || rel.includes("\0"))
      return send(res, req, 404, "text/plain; charset=utf-8", "not found\n", "no-store");
    let body: Buffer;
    try {
      body = fs.readFileSync(file);
    } catch {
      const missing = isPage ? "the web console is not built: run scripts/bootstrap\n" : "not found\n";
      return send(res, req, isPage ? 503 : 404, "text/plain; charset=utf-8", missing, "no-store");
    }
    const type = TYPES[path.extname(file)] ?? "application/octet-stream";
    return send(res, req, 200, type, body, isPage ? "no-cache" : "public, max-age=31536000, immutable");
  };
}

function safeDecode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string | Buffer, cache: string): true {
  res.writeHead(status, { ...SECURITY_HEADERS, "Content-Type": type, "Content-Length": Buffer.byteLength(body), "Cache-Control": cache });
  res.end(req.method === "HEAD" ? undefined : body);
  return true;
}
