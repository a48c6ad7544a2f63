import type { IpBytes } from "./ip-address.js";

/** An IPv4 address carried inside an IPv6 one, and the form that carries it. */
export interface EmbeddedIpv4 {
  ip: IpBytes;
  form: string;
}

const zero = (bytes: readonly number[]) => bytes.every((b) => b === 0);
const starts = (ip: IpBytes, prefix: readonly number[]) => prefix.every((b, i) => ip[i] === b);

/** RFC 6052: where the IPv4 address sits for each prefix length; byte 8 is always skipped. */
const NAT64_PLACES: readonly (readonly number[])[] = [
  [6, 7, 9, 10], // /48
  [7, 9, 10, 11], // /56
  [9, 10, 11, 12], // /64
  [12, 13, 14, 15], // /96
];

/**
 * The IPv4 addresses an IPv6 address leads to by translation or tunnelling: NAT64
 * (64:ff9b::/96, and 64:ff9b:1::/48 at every prefix length an operator may pick), SIIT
 * (::ffff:0:0:0/96), IPv4-compatible (::/96), 6to4 (2002::/16) and Teredo (2001::/32, the
 * client's address inverted in the last 32 bits). Empty for an IPv4 address or any other IPv6.
 */
export function embeddedIpv4(ip: IpBytes): EmbeddedIpv4[] {
  if (ip.length !== 16) return [];
  const last = ip.slice(12);
  if (starts(ip, [0x00, 0x64, 0xff, 0x9b]) && zero(ip.slice(4, 12))) return [{ ip: last, form: "NAT64" }];
  if (starts(ip, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])) return NAT64_PLACES.map((at) => ({ ip: at.map((i) => ip[i]!), form: "NAT64" }));
  if (zero(ip.slice(0, 8)) && ip[8] === 0xff && ip[9] === 0xff && zero(ip.slice(10, 12))) return [{ ip: last, form: "SIIT" }];
  if (zero(ip.slice(0, 12))) return [{ ip: last, form: "IPv4-compatible" }];
  if (starts(ip, [0x20, 0x02])) return [{ ip: ip.slice(2, 6), form: "6to4" }];
  if (starts(ip, [0x20, 0x01, 0x00, 0x00])) return [{ ip: last.map((b) => b ^ 0xff), form: "Teredo" }];
  return [];
}
