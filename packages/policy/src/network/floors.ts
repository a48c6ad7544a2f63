import { embeddedIpv4 } from "./embedded-ipv4.js";
import { formatIp, inBlock, parseBlock, type IpBlock, type IpBytes } from "./ip-address.js";

/** Addresses that no rule opens unless it names them exactly (docs/design.md, "Floors"): the host's own and the cloud's. */
const FLOORS: readonly { block: IpBlock; what: string }[] = [
  ["127.0.0.0/8", "the host's loopback"],
  ["0.0.0.0/8", "this host (0.0.0.0 reaches its loopback services)"],
  ["::1/128", "the host's loopback"],
  ["::/128", "this host (:: reaches its loopback services)"],
  ["169.254.169.254/32", "the cloud metadata service"],
  ["fd00:ec2::254/128", "the cloud metadata service"],
  ["169.254.0.0/16", "a link-local address"],
  ["fe80::/10", "a link-local address"],
].map(([cidr, what]) => ({ block: parseBlock(cidr!)!, what: what! }));

/** A floor an address reaches: what it is, and the address as it reaches it (with the IPv6 form that carries it). */
export interface FloorReach {
  what: string;
  address: string;
}

function directFloor(ip: IpBytes, more: readonly { ip: IpBytes; what: string }[], floors = FLOORS): string | null {
  const own = more.find((m) => formatIp(m.ip) === formatIp(ip));
  if (own) return own.what;
  return floors.find((f) => inBlock(ip, f.block))?.what ?? null;
}

/** A translator or tunnel never delivers 0.0.0.0/8 to this host, and the zero bytes of most NAT64 forms read as it. */
const CARRIED_FLOORS = FLOORS.filter((f) => !(f.block.bits === 8 && f.block.base[0] === 0));

/**
 * What makes an address a floor: loopback, link-local, metadata, or one of `more` (the server's
 * own), itself or as the IPv4 address an IPv6 form carries (NAT64, 6to4, Teredo, ...); null for others.
 */
export function floorOf(ip: IpBytes, more: readonly { ip: IpBytes; what: string }[] = []): FloorReach | null {
  const what = directFloor(ip, more);
  if (what) return { what, address: formatIp(ip) };
  for (const inner of embeddedIpv4(ip)) {
    const carried = directFloor(inner.ip, more, CARRIED_FLOORS);
    if (carried) return { what: carried, address: `${formatIp(inner.ip)} inside ${formatIp(ip)} by ${inner.form}` };
  }
  return null;
}
