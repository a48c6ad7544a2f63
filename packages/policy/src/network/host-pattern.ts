import { globRegExp } from "../pattern.js";
import { formatIp, inBlock, parseBlock, parseIp, type IpBlock, type IpBytes } from "./ip-address.js";

/** Where a connection goes: a host name (lower case) or an IP address, and a port. */
export interface NetworkTarget {
  /** The host as matched: a lower-case name without a trailing dot, or the address in its usual form. */
  host: string;
  port: number;
  /** Set when the host is an IP address: then it is matched as that address, never as a name. */
  ip: IpBytes | null;
}

/** A `network` rule's pattern: a host part and an optional port. */
export interface HostPattern {
  /** `any`: `*`; `name`: a literal or glob host name; `ip`: an address or CIDR block. */
  kind: "any" | "name" | "ip";
  /** The name or address as written, lower case: what "names it exactly" compares. */
  literal: string | null;
  port: number | null;
  test(target: NetworkTarget): boolean;
}

const NAME = /^[a-z0-9*?_.-]+$/;
const PORT = /^(\*|\d{1,5})$/;

function splitPort(pattern: string): { host: string; port: string | null } | null {
  if (pattern.startsWith("[")) {
    const close = pattern.indexOf("]");
    if (close === -1) return null;
    const rest = pattern.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) return null;
    return { host: pattern.slice(1, close), port: rest === "" ? null : rest.slice(1) };
  }
  const colons = pattern.split(":").length - 1;
  if (colons !== 1) return { host: pattern, port: null };
  const at = pattern.lastIndexOf(":");
  return { host: pattern.slice(0, at), port: pattern.slice(at + 1) };
}

function portOf(text: string | null): number | null | undefined {
  if (text === null || text === "*") return null;
  if (!PORT.test(text) || Number(text) < 1 || Number(text) > 65535) return undefined;
  return Number(text);
}

function hostTest(host: string): Pick<HostPattern, "kind" | "literal"> & { matches(t: NetworkTarget): boolean } {
  if (host === "*") return { kind: "any", literal: null, matches: () => true };
  const block: IpBlock | null = parseBlock(host);
  if (block) {
    const literal = host.includes("/") ? null : host;
    return { kind: "ip", literal, matches: (t) => t.ip !== null && inBlock(t.ip, block) };
  }
  const name = host.replace(/\.$/, "");
  const literal = /[*?]/.test(name) ? null : name;
  const re = globRegExp(name, false);
  return { kind: "name", literal, matches: (t) => t.ip === null && (literal === null ? re.test(t.host) : t.host === literal) };
}

/**
 * A `network` pattern: `host`, `host:port`, `*.example.org:443`, `10.0.0.0/8`, `[fd00::1]:8080`,
 * `*`. A name pattern never matches an IP address and an address pattern never matches a name.
 * Null, with the reason, when the pattern is none of these: such a rule matches nothing.
 */
export function compileHostPattern(pattern: string): HostPattern | { error: string } {
  const lower = pattern.trim().toLowerCase();
  const parts = splitPort(lower);
  if (!parts || parts.host === "") return { error: `"${pattern}" is not a host, host:port, address or address block` };
  const port = portOf(parts.port);
  if (port === undefined) return { error: `"${parts.port}" is not a port (1 to 65535, or *)` };
  const ipLike = parts.host.includes(":") || parts.host.includes("/") || /^[\d.]+$/.test(parts.host);
  if (ipLike && !parseBlock(parts.host)) return { error: `"${parts.host}" is not an IP address or address block` };
  if (!ipLike && !NAME.test(parts.host)) return { error: `"${parts.host}" is not a host name (letters, digits, -, . and the wildcards * ?)` };
  const host = hostTest(parts.host);
  return { kind: host.kind, literal: host.literal, port, test: (t) => (port === null || t.port === port) && host.matches(t) };
}

/** The last label of a name is never all digits, nor hexadecimal with 0x: such a host is an address spelled unusually. */
const NUMERIC_LABEL = /^(0x[0-9a-f]*|\d+)$/i;

/** A connection's host and port as the rules see them, or the reason they cannot be judged. */
export function networkTarget(rawHost: string, port: number): NetworkTarget | { error: string } {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { error: `${port} is not a port` };
  const host = rawHost.trim().toLowerCase().replace(/\.$/, "");
  const ip = parseIp(host);
  if (ip) return { host: formatIp(ip), port, ip };
  if (host.includes(":") || !/^[a-z0-9_.-]+$/.test(host) || host.startsWith(".") || host.includes(".."))
    return { error: `"${rawHost}" is not a host name or IP address` };
  const last = host.slice(host.lastIndexOf(".") + 1);
  if (NUMERIC_LABEL.test(last)) return { error: `"${rawHost}" spells an IP address in an unusual form; write it as a dotted quad or IPv6` };
  return { host, port, ip: null };
}
