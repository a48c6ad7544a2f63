import { describe, expect, it } from "vitest";
import {
  compileHostPattern,
  decideNetworkAddresses,
  decideNetworkTarget,
  explainDecision,
  formatIp,
  lintRules,
  networkTarget,
  overbroadPattern,
  suggestPatterns,
  parseIp,
  Ruleset,
  type NetworkTarget,
} from "../src/index.js";
import { context, decide, ruleset } from "./helpers.js";

const target = (host: string, port: number): NetworkTarget => {
  const t = networkTarget(host, port);
  if ("error" in t) throw new Error(t.error);
  return t;
};
const matches = (pattern: string, host: string, port: number) => {
  const p = compileHostPattern(pattern);
  if ("error" in p) throw new Error(p.error);
  return p.test(target(host, port));
};

describe("network patterns", () => {
  it("match names, name globs, ports, addresses and blocks; a name pattern never matches an address", () => {
    expect(matches("api.example.com", "API.example.com.", 443)).toBe(true);
    expect(matches("api.example.com", "api.example.com", 80)).toBe(true);
    expect(matches("api.example.com:443", "api.example.com", 80)).toBe(false);
    expect(matches("*.example.org:443", "a.b.example.org", 443)).toBe(true);
    expect(matches("*.example.org:443", "example.org", 443)).toBe(false);
    expect(matches("*.example.org:443", "evil-example.org", 443)).toBe(false);
    expect(matches("10.0.0.0/8", "10.200.3.4", 22)).toBe(true);
    expect(matches("10.0.0.0/8", "11.0.0.1", 22)).toBe(false);
    expect(matches("[fd00::1]:8080", "fd00:0:0::1", 8080)).toBe(true);
    expect(matches("fd00::/8", "fd12::5", 1)).toBe(true);
    expect(matches("*", "1.2.3.4", 1)).toBe(true);
    expect(matches("*.*.*.*", "1.2.3.4", 1)).toBe(false);
    expect(matches("1.2.3.4", "::ffff:1.2.3.4", 1)).toBe(true);
  });

  it("refuse what is not a host, a port or an address, saying why", () => {
    expect(compileHostPattern("10.0.0.0/33")).toMatchObject({ error: expect.stringMatching(/not an IP address or address block/) });
    expect(compileHostPattern("example.com:99999")).toMatchObject({ error: expect.stringMatching(/not a port/) });
    expect(compileHostPattern("https://example.com")).toMatchObject({ error: expect.stringMatching(/not/) });
    expect(networkTarget("127.1", 80)).toMatchObject({ error: expect.stringMatching(/unusual form/) });
    expect(networkTarget("0x7f000001", 80)).toMatchObject({ error: expect.stringMatching(/unusual form/) });
    expect(networkTarget("a b", 80)).toMatchObject({ error: expect.stringMatching(/not a host name/) });
    expect(networkTarget("example.com", 0)).toMatchObject({ error: expect.stringMatching(/not a port/) });
  });

  it("spell addresses in their usual form", () => {
    expect(formatIp(parseIp("fd00:ec2:0:0:0:0:0:254")!)).toBe("fd00:ec2::254");
    expect(formatIp(parseIp("[::1]")!)).toBe("::1");
    expect(parseIp("256.1.1.1")).toBeNull();
    expect(parseIp("1:2:3:4:5:6:7:8:9")).toBeNull();
  });
});

describe("network decisions", () => {
  const rules = ruleset(`{
    "*": "ask",
    "network": { "*": "ask", "*.example.org:443": "allow", "bad.example.org": "deny", "10.0.0.0/8": "deny", "127.0.0.0/8": "allow", "127.0.0.1:5432": "allow" }
  }`);
  const ctx = context({ static: rules });

  it("last match wins over names; the default rules allow package registries and ask for the rest", () => {
    expect(decide("network", { host: "api.example.org", port: 443 }, ctx)).toMatchObject({ action: "allow", pattern: "*.example.org:443" });
    expect(decide("network", { host: "bad.example.org", port: 443 }, ctx)).toMatchObject({ action: "deny" });
    expect(decide("network", { host: "api.example.org", port: 80 }, ctx)).toMatchObject({ action: "ask" });
    expect(decide("network", { host: "registry.npmjs.org", port: 443 })).toMatchObject({ action: "allow" });
    expect(decide("network", { host: "pypi.org", port: 443 })).toMatchObject({ action: "allow" });
    expect(decide("network", { host: "attacker.example", port: 443 })).toMatchObject({ action: "ask" });
  });

  it("floors: loopback and metadata only under a rule that names them exactly; a block or * does not", () => {
    expect(decide("network", { host: "127.0.0.1", port: 5432 }, ctx)).toMatchObject({ action: "allow", pattern: "127.0.0.1:5432" });
    expect(decide("network", { host: "127.0.0.1", port: 7420 }, ctx)).toMatchObject({ action: "deny", reason: expect.stringMatching(/loopback/) });
    const open = context({ static: ruleset(`{"*": "allow"}`) });
    expect(decide("network", { host: "169.254.169.254", port: 80 }, open)).toMatchObject({ action: "deny", reason: expect.stringMatching(/metadata/) });
    expect(decide("network", { host: "fe80::1", port: 80 }, open)).toMatchObject({ action: "deny", reason: expect.stringMatching(/link-local/) });
    expect(decide("network", { host: "0.0.0.0", port: 80 }, open)).toMatchObject({ action: "deny" });
    expect(decide("network", { host: "8.8.8.8", port: 53 }, open)).toMatchObject({ action: "allow" });
  });

  it("a name is judged again on its addresses: a floor or a denied block stops it; the server's addresses are floors too", () => {
    const t = target("api.example.org", 443);
    const byName = decideNetworkTarget(ctx.layers, t);
    expect(decideNetworkAddresses(ctx.layers, t, byName, [parseIp("93.184.216.34")!])).toMatchObject({ action: "allow" });
    expect(decideNetworkAddresses(ctx.layers, t, byName, [parseIp("127.0.0.1")!])).toMatchObject({ action: "deny", reason: expect.stringMatching(/loopback/) });
    expect(decideNetworkAddresses(ctx.layers, t, byName, [parseIp("10.1.2.3")!])).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/resolves to 10\.1\.2\.3, which the network rule "10\.0\.0\.0\/8" denies/),
    });
    const server = [{ ip: parseIp("93.184.216.34")!, what: "the Gatehouse server (gh.example.org)" }];
    expect(decideNetworkAddresses(ctx.layers, t, byName, [parseIp("93.184.216.34")!], server)).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/Gatehouse server/),
    });
  });

  it("an approval-made allow never overrides a deny; explain shows the rule", () => {
    const runtime = new Ruleset([{ tool: "network", pattern: "bad.example.org", action: "allow", origin: "approval" }]);
    const layered = context({ static: rules, runtime });
    expect(decide("network", { host: "bad.example.org", port: 443 }, layered)).toMatchObject({ action: "deny", reason: expect.stringMatching(/deny floor/) });
    const text = explainDecision(decide("network", { host: "api.example.org", port: 443 }, ctx));
    expect(text).toMatch(/^ALLOW {2}network "api\.example\.org:443"/);
    expect(text).toMatch(/decided by: static rule network "\*\.example\.org:443": allow/);
  });

  it("always offers the host, editable to a glob; a pattern for every host is never saved", () => {
    expect(suggestPatterns(decide("network", { host: "api.example.net", port: 8443 }, ctx))).toEqual(["api.example.net"]);
    expect(suggestPatterns(decide("network", { host: "fd00::5", port: 80 }, ctx))).toEqual(["fd00::5"]);
    expect(overbroadPattern("*.example.org:443", "network")).toBeNull();
    expect(overbroadPattern("*", "network")).toMatch(/matches every host/);
    expect(overbroadPattern("*.*:443", "network")).toMatch(/matches every host/);
    expect(overbroadPattern("http://x", "network")).toMatch(/not/);
  });

  it("lint warns about patterns that can never match a connection", () => {
    const report = lintRules(`{"network": {"10.0.0.0/33": "allow", "example.com:http": "deny", "ok.example.com": "allow"}}`, { file: "p", home: "/h" });
    expect(report.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/network "10\.0\.0\.0\/33" can never match: .*not an IP address or address block/),
      expect.stringMatching(/network "example\.com:http" can never match: .*not a port/),
    ]);
  });
});
