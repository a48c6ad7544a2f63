import { formatIp } from "@gatehouse/policy";
import { ProxyProtocolError } from "../errors.js";

/** SOCKS5 (RFC 1928), CONNECT only, no authentication: what the proxy reads and answers. */
export const SOCKS_VERSION = 5;

/** Reply codes: succeeded, general failure, not allowed by ruleset, host unreachable, command not supported. */
export const SOCKS_REPLY = { ok: 0, failure: 1, notAllowed: 2, unreachable: 4, refused: 5, unsupported: 7 } as const;

/** The length of the greeting (version, method count, methods) once all of it came, else null. */
export function greetingEnd(b: Buffer): number | null {
  if (b.length < 2) return null;
  return b.length >= 2 + b[1]! ? 2 + b[1]! : null;
}

/** The length of a CONNECT request once all of it came, else null. */
export function requestEnd(b: Buffer): number | null {
  if (b.length < 5) return null;
  const type = b[3];
  const address = type === 1 ? 4 : type === 4 ? 16 : type === 3 ? 1 + b[4]! : -1;
  if (address === -1) return 4;
  return b.length >= 4 + address + 2 ? 4 + address + 2 : null;
}

export function checkGreeting(b: Buffer): void {
  if (b[0] !== SOCKS_VERSION) throw new ProxyProtocolError(`SOCKS version ${b[0]} is not offered; use SOCKS5`);
  if (!b.subarray(2).includes(0)) throw new ProxyProtocolError("SOCKS5 without authentication is all the proxy offers");
}

/** The host and port of a request; `unsupported` for another command or address type. */
export function parseRequest(b: Buffer): { host: string; port: number } | "unsupported" {
  if (b[0] !== SOCKS_VERSION || b[1] !== 1) return "unsupported";
  const type = b[3];
  if (type === 1) return { host: formatIp([...b.subarray(4, 8)]), port: b.readUInt16BE(8) };
  if (type === 4) return { host: formatIp([...b.subarray(4, 20)]), port: b.readUInt16BE(20) };
  if (type === 3) return { host: b.subarray(5, 5 + b[4]!).toString("latin1"), port: b.readUInt16BE(5 + b[4]!) };
  return "unsupported";
}

export function reply(code: number): Buffer {
  return Buffer.from([SOCKS_VERSION, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}
