import { describe, expect, it } from "vitest";
import { decideNetworkAddresses, decideNetworkTarget, embeddedIpv4, formatIp, networkTarget, parseIp, type NetworkTarget } from "../src/index.js";
import { context, decide, ruleset } from "./helpers.js";

const open = context({ static: ruleset(`{"network": {"*": "allow"}}`) });
const carried = (text: string) => embeddedIpv4(parseIp(text)!).map((e) => `${formatIp(e.ip)} ${e.form}`);

describe("IPv4 addresses carried inside IPv6 ones", () => {
  it("are read from NAT64, SIIT, IPv4-compatible, 6to4 and Teredo forms", () => {
    expect(carried("64:ff9b::a9fe:a9fe")).toEqual(["169.254.169.254 NAT64"]);
    expect(carried("64:ff9b:1::a9fe:a9fe")).toContain("169.254.169.254 NAT64");
    expect(carried("64:ff9b:1:7f00:0:100::")).toContain("127.0.0.1 NAT64");
    expect(carried("::ffff:0:7f00:1")).toEqual(["127.0.0.1 SIIT"]);
    expect(carried("::a9fe:a9fe")).toEqual(["169.254.169.254 IPv4-compatible"]);
    expect(carried("2002:7f00:1::")).toEqual(["127.0.0.1 6to4"]);
    expect(carried("2001:0:4136:e378:8000:63bf:80ff:fffe")).toEqual(["127.0.0.1 Teredo"]);
    expect(carried("2606:4700::1111")).toEqual([]);
    expect(carried("8.8.8.8")).toEqual([]);
  });

  it("reach the floors they carry: with every host allowed, each form of loopback and metadata is denied, saying which", () => {
    const cases: [string, RegExp][] = [
      ["64:ff9b::a9fe:a9fe", /the cloud metadata service \(169\.254\.169\.254 inside 64:ff9b::a9fe:a9fe by NAT64\)/],
      ["64:ff9b:1::a9fe:a9fe", /the cloud metadata service \(169\.254\.169\.254 inside .* by NAT64\)/],
      ["::a9fe:a9fe", /metadata .* by IPv4-compatible/],
      ["::7f00:1", /the host's loopback \(127\.0\.0\.1 inside ::7f00:1 by IPv4-compatible\)/],
      ["::ffff:0:7f00:1", /loopback .* by SIIT/],
      ["2002:a9fe:a9fe::", /metadata .* by 6to4/],
      ["2002:7f00:1::", /loopback .* by 6to4/],
      ["2001:0:4136:e378:8000:63bf:5601:5601", /the cloud metadata service \(169\.254\.169\.254 inside .* by Teredo\)/],
      ["2001:0:4136:e378:8000:63bf:80ff:fffe", /loopback .* by Teredo/],
      ["::ffff:127.0.0.1", /the host's loopback \(127\.0\.0\.1\)/],
    ];
    for (const [host, reason] of cases)
      expect(decide("network", { host, port: 80 }, open), host).toMatchObject({ action: "deny", reason: expect.stringMatching(reason) });
    expect(decide("network", { host: "64:ff9b::808:808", port: 53 }, open)).toMatchObject({ action: "allow" });
    expect(decide("network", { host: "2002:808:808::1", port: 53 }, open)).toMatchObject({ action: "allow" });
  });

  it("an exact rule for the IPv6 address opens it; a name resolving to one is a floor; the server's own address is carried too", () => {
    const exact = context({ static: ruleset(`{"network": {"*": "allow", "[64:ff9b::7f00:1]:5432": "allow"}}`) });
    expect(decide("network", { host: "64:ff9b::7f00:1", port: 5432 }, exact)).toMatchObject({ action: "allow" });
    const t = networkTarget("rebind.example.org", 443) as NetworkTarget;
    const byName = decideNetworkTarget(open.layers, t);
    expect(decideNetworkAddresses(open.layers, t, byName, [parseIp("64:ff9b::a9fe:a9fe")!])).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/metadata/),
    });
    const server = [{ ip: parseIp("93.184.216.34")!, what: "the Gatehouse server" }];
    expect(decideNetworkAddresses(open.layers, t, byName, [parseIp("2002:5db8:d822::1")!], server)).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/the Gatehouse server \(93\.184\.216\.34 inside 2002:5db8:d822::1 by 6to4\)/),
    });
  });

  it("an address rule denying a block denies the IPv4 address carried in that block", () => {
    const ctx = context({ static: ruleset(`{"network": {"*": "allow", "10.0.0.0/8": "deny"}}`) });
    expect(decide("network", { host: "64:ff9b::a01:203", port: 22 }, ctx)).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/64:ff9b::a01:203 carries 10\.1\.2\.3 by NAT64, which the network rule "10\.0\.0\.0\/8" denies/),
    });
    const t = networkTarget("inside.example.org", 22) as NetworkTarget;
    expect(decideNetworkAddresses(ctx.layers, t, decideNetworkTarget(ctx.layers, t), [parseIp("2002:a01:203::")!])).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/by 6to4/),
    });
  });
});
