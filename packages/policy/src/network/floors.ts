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

/** What makes an address a floor: loopback, link-local, metadata, or one of `more` (the server's own); null for others. */
export function floorOf(ip: IpBytes, more: readonly { ip: IpBytes; what: string }[] = []): string | null {
  const own = more.find((m) => formatIp(m.ip) === formatIp(ip));
  if (own) return own.what;
  return FLOORS.find((f) => inBlock(ip, f.block))?.what ?? null;
}
