import { ProxyProtocolError } from "../errors.js";

/** An HTTP proxy request: a CONNECT tunnel, or a plain request for an absolute http:// URL, made ready for the origin. */
export type HttpProxyRequest = { kind: "connect"; host: string; port: number } | { kind: "forward"; host: string; port: number; head: Buffer };

/** Where the head of an HTTP request ends (after its blank line), or null while it has not. */
export function headEnd(buffer: Buffer): number | null {
  const at = buffer.indexOf("\r\n\r\n");
  return at === -1 ? null : at + 4;
}

/** `host:port` or `[v6]:port`. */
export function splitHostPort(text: string, defaultPort: number | null): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(text);
  if (!m || (m[2] === undefined && defaultPort === null)) throw new ProxyProtocolError(`"${text}" is not host:port`);
  const host = m[1]!.startsWith("[") ? m[1]!.slice(1, -1) : m[1]!;
  return { host, port: m[2] === undefined ? defaultPort! : Number(m[2]) };
}

/** Headers for the proxy alone, and those that would keep the connection open for requests to other hosts. */
const HOP_BY_HOP = /^(proxy-connection|proxy-authorization|connection|keep-alive):/i;

/** Parses a request head (up to and with its blank line). */
export function parseHttpProxyRequest(head: Buffer): HttpProxyRequest {
  const lines = head.toString("latin1").split("\r\n");
  const [method, target, version] = lines[0]!.split(" ");
  if (!method || !target || !version?.startsWith("HTTP/")) throw new ProxyProtocolError("not an HTTP proxy request");
  if (method === "CONNECT") return { kind: "connect", ...splitHostPort(target, null) };
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new ProxyProtocolError(`"${target}" is not an absolute URL; a proxy needs one`);
  }
  if (url.protocol !== "http:") throw new ProxyProtocolError(`${url.protocol} URLs go through CONNECT, not a plain request`);
  const headers = lines.slice(1).filter((l) => l !== "" && !HOP_BY_HOP.test(l));
  const rewritten = [`${method} ${url.pathname}${url.search} ${version}`, ...headers, "Connection: close", "", ""].join("\r\n");
  const port = url.port === "" ? 80 : Number(url.port);
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return { kind: "forward", host, port, head: Buffer.from(rewritten, "latin1") };
}

/** A refusal the program sees: a status, and the reason in a header and in the body. */
export function httpRefusal(status: 403 | 400 | 502, label: string, reason: string): Buffer {
  const text = { 403: "Forbidden", 400: "Bad Request", 502: "Bad Gateway" }[status];
  const line = `gatehouse refused ${label}: ${reason}`.replace(/[^\x20-\x7e]/g, "?");
  const body = `${line}\n`;
  return Buffer.from(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\nX-Gatehouse-Refused: ${line}\r\n\r\n${body}`,
    "latin1",
  );
}
