/** An IP address as bytes: 4 for IPv4, 16 for IPv6 (an IPv4-mapped IPv6 address is taken as its IPv4). */
export type IpBytes = readonly number[];

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function parseIpv4(text: string): IpBytes | null {
  return IPV4.test(text) ? text.split(".").map(Number) : null;
}

function groupsOf(part: string): number[] | null {
  if (part === "") return [];
  const groups: number[] = [];
  const pieces = part.split(":");
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    if (i === pieces.length - 1 && piece.includes(".")) {
      const v4 = parseIpv4(piece);
      if (!v4) return null;
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    } else if (/^[0-9a-f]{1,4}$/i.test(piece)) groups.push(parseInt(piece, 16));
    else return null;
  }
  return groups;
}

function parseIpv6(text: string): IpBytes | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

/** The address a text spells in the standard forms (dotted quad, IPv6 with or without brackets), or null. */
export function parseIp(text: string): IpBytes | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  return bare.includes(":") ? parseIpv6(bare) : parseIpv4(bare);
}

/** The address written in its usual form: dotted quad, or IPv6 groups with the longest zero run as `::`. */
export function formatIp(ip: IpBytes): string {
  if (ip.length === 4) return ip.join(".");
  const groups = Array.from({ length: 8 }, (_, i) => (ip[2 * i]! << 8) | ip[2 * i + 1]!);
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i > 1) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at === -1) return hex.join(":");
  return `${hex.slice(0, best.at).join(":")}::${hex.slice(best.at + best.length).join(":")}`;
}

/** A block of addresses: `10.0.0.0/8`, `fe80::/10`, or one address. */
export interface IpBlock {
  base: IpBytes;
  bits: number;
}

/** A CIDR block or a single address, or null when the text is neither. */
export function parseBlock(text: string): IpBlock | null {
  const slash = text.indexOf("/");
  const base = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (!base) return null;
  const max = base.length * 8;
  if (slash === -1) return { base, bits: max };
  const bitsText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > max) return null;
  return { base, bits: Number(bitsText) };
}

export function inBlock(ip: IpBytes, block: IpBlock): boolean {
  if (ip.length !== block.base.length) return false;
  for (let bit = 0; bit < block.bits; bit += 8) {
    const take = Math.min(8, block.bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((ip[bit / 8]! & mask) !== (block.base[bit / 8]! & mask)) return false;
  }
  return true;
}
