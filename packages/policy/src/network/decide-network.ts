import type { Verdict } from "../decision.js";
import type { Layers } from "../ruleset.js";
import { ORDER_LAST_FIRST } from "../ruleset.js";
import { decideSubject } from "../decide.js";
import { embeddedIpv4 } from "./embedded-ipv4.js";
import { floorOf } from "./floors.js";
import { networkTarget, type NetworkTarget } from "./host-pattern.js";
import { hostPattern } from "./host-pattern-cache.js";
import { formatIp, parseIp, type IpBytes } from "./ip-address.js";

import { NETWORK_TOOL } from "./network-tool.js";

export { NETWORK_TOOL };

/** An address besides the built-in floors that commands never reach unless a rule names it (the server's). */
export interface ExtraFloor {
  ip: IpBytes;
  what: string;
}

/** How a target is written in decisions: `host:port`, an IPv6 address in brackets. */
export function targetLabel(target: NetworkTarget): string {
  return `${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}`;
}

/** The rules' verdict on a connection by its host and port, before the addresses it resolves to are known. */
export function decideNetworkTarget(layers: Layers, target: NetworkTarget): Verdict {
  return decideSubject(layers, NETWORK_TOOL, { kind: "host", target }, targetLabel(target));
}

/** Whether the rule that decided a connection names this host or address exactly (no wildcard, no block). */
function namesExactly(verdict: Verdict, target: NetworkTarget, ip: IpBytes): boolean {
  if (!verdict.rule) return false;
  const p = hostPattern(verdict.rule.pattern);
  if (!p?.literal || (p.port !== null && p.port !== target.port)) return false;
  if (p.kind === "name") return p.literal === target.host;
  const named = parseIp(p.literal);
  return named !== null && formatIp(named) === formatIp(ip);
}

/** The last address rule (an address or block pattern) of any layer that matches an address a name resolved to. */
function addressRule(layers: Layers, target: NetworkTarget, ip: IpBytes): { pattern: string; action: string } | null {
  const asAddress: NetworkTarget = { host: formatIp(ip), port: target.port, ip };
  for (const layer of ORDER_LAST_FIRST) {
    const list = layers[layer]?.forTool(NETWORK_TOOL) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const rule = list[i]!.rule;
      const p = hostPattern(rule.pattern);
      if (p?.kind === "ip" && p.test(asAddress)) return rule;
    }
  }
  return null;
}

/**
 * The verdict once the host's addresses are known: an address that is a floor (loopback,
 * link-local, metadata, the server's own) is reached, or asked about, only under a rule that names
 * it exactly; an address rule that denies one of a name's addresses denies it.
 */
export function decideNetworkAddresses(
  layers: Layers,
  target: NetworkTarget,
  verdict: Verdict,
  addresses: readonly IpBytes[],
  extra: readonly ExtraFloor[] = [],
): Verdict {
  if (verdict.action === "deny") return verdict;
  const label = targetLabel(target);
  for (const ip of addresses) {
    const floor = floorOf(ip, extra);
    if (floor && !namesExactly(verdict, target, ip))
      return { action: "deny", subject: label, rule: null, reason: `it reaches ${floor.what} (${floor.address}); only a rule naming it exactly opens it` };
    const denied = deniedAddress(layers, target, ip);
    if (denied) return { action: "deny", subject: label, rule: null, reason: denied };
  }
  return verdict;
}

/** Why an address rule denies an address: the address a name resolved to, or the IPv4 address an IPv6 one carries. */
function deniedAddress(layers: Layers, target: NetworkTarget, ip: IpBytes): string | null {
  const denied = target.ip ? null : addressRule(layers, target, ip);
  if (denied?.action === "deny") return `${target.host} resolves to ${formatIp(ip)}, which the network rule "${denied.pattern}" denies`;
  for (const inner of embeddedIpv4(ip)) {
    const rule = addressRule(layers, target, inner.ip);
    if (rule?.action === "deny") return `${formatIp(ip)} carries ${formatIp(inner.ip)} by ${inner.form}, which the network rule "${rule.pattern}" denies`;
  }
  return null;
}

/**
 * A `network` call as `permissions explain` and the server judge it (`{ host, port }`): the rules,
 * and for an IP address its floors. A name's addresses are judged again when it is resolved.
 */
export function decideNetworkCall(args: Record<string, unknown>, layers: Layers): Verdict {
  const host = typeof args.host === "string" ? args.host : "";
  const port = typeof args.port === "number" ? args.port : Number(args.port);
  const target = networkTarget(host, port);
  if ("error" in target)
    return { action: "deny", subject: `${host}:${String(args.port)}`, rule: null, reason: `${target.error}; such a connection is never made` };
  const verdict = decideNetworkTarget(layers, target);
  return target.ip ? decideNetworkAddresses(layers, target, verdict, [target.ip]) : verdict;
}
