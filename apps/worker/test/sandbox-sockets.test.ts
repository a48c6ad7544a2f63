import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { loadShellParser } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileGuard, resolveSandbox, ShellRunner } from "../src/index.js";
import { findRelay } from "../src/network/relay-command.js";
import { hostSockets } from "../src/sandbox/host-sockets.js";
import { EVERY_SANDBOX, runIn } from "./every-sandbox.js";

await loadShellParser();
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-sockets-")));
const work = path.join(root, "work");
fs.mkdirSync(work);
// A host service on a Unix socket outside /tmp, which the sandbox would not hide by its own /tmp: as docker.sock or a database's socket.
const services = fs.realpathSync(fs.mkdtempSync("/var/tmp/gh-sockets-"));
const serviceSocket = path.join(services, "svc.sock");
const servers: net.Server[] = [];
let web = 0;
beforeAll(async () => {
  const service = net.createServer((s) => s.end("HOST-SERVICE-REACHED\n"));
  servers.push(service);
  await new Promise<void>((resolve) => service.listen(serviceSocket, resolve));
  fs.chmodSync(serviceSocket, 0o777);
  const site = http.createServer((_req, res) => res.end("through the proxy\n"));
  servers.push(site);
  web = await new Promise<number>((resolve) => site.listen(0, "127.0.0.1", () => resolve((site.address() as net.AddressInfo).port)));
});
afterAll(() => {
  for (const s of servers) s.close();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(services, { recursive: true, force: true });
});

const rules = (...extra: Guard["static"]): Guard => ({
  agent: null,
  static: [{ tool: "shell_exec", pattern: "*", action: "allow", origin: "person" }, ...extra],
  runtime: [],
  protectedPaths: [],
});
const guard = new FileGuard(rules(), work);
const offline = new ShellRunner(work, resolveSandbox({ mode: "required", network: false }), { watch: false });
const proxied = new ShellRunner(work, resolveSandbox({ mode: "required", network: true }), { watch: false, egress: { relay: findRelay() } });
afterAll(() => [offline, proxied].forEach((r) => r.close()));

/** Node connecting to a Unix socket at `at` and printing what it answers, or the error. */
const CONNECT = (at: string) =>
  `"${process.execPath}" -e 'const c=require("net").connect({path:process.argv[1]});c.on("data",d=>process.stdout.write("got "+d));c.on("error",e=>console.log("refused "+e.code))' ${at}`;

describe("the host's Unix sockets", () => {
  it("are listed from the kernel's table, each at its real path, but those under /tmp that the sandbox replaces and those the user cannot write", async () => {
    const closed = net.createServer();
    servers.push(closed);
    const closedSocket = path.join(services, "closed.sock");
    await new Promise<void>((resolve) => closed.listen(closedSocket, resolve));
    fs.chmodSync(closedSocket, 0o500);
    const listed = hostSockets([]);
    expect(listed).toContain(serviceSocket);
    expect(listed).not.toContain(closedSocket);
    expect(listed.some((s) => s.startsWith("/tmp/"))).toBe(false);
  });

  describe.each([
    ["no network", offline],
    ["network through the proxy", proxied],
  ] as const)("with %s", (_network, runner) => {
    it.each(EVERY_SANDBOX)("%s: a host service listening on a socket at a path is not reached", async (use) => {
      // The worker outside the sandbox reaches it: the service is up.
      const outside = await new Promise<string>((resolve) => net.connect({ path: serviceSocket }).on("data", (d) => resolve(String(d))));
      expect(outside).toBe("HOST-SERVICE-REACHED\n");
      const r = await runIn(use, runner, guard, CONNECT(serviceSocket));
      expect(r.out).not.toContain("HOST-SERVICE-REACHED");
      expect(r.out).toMatch(/^refused (EACCES|ECONNREFUSED)$/m);
    });
  });

  it("a command's own sockets, in its /tmp and in the work directory, still work", async () => {
    const serve = (at: string) =>
      `"${process.execPath}" -e 'require("net").createServer(s=>s.end("OWN "+process.argv[1]+"\\n")).listen(process.argv[1])' ${at} & for i in $(seq 100); do [ -S ${at} ] && break; sleep 0.05; done; ${CONNECT(at)}; kill %1`;
    const r = await runIn("model", offline, guard, `${serve("/tmp/own.sock")}; ${serve(path.join(work, "own.sock"))}`);
    expect(r.out).toContain("got OWN /tmp/own.sock");
    expect(r.out).toContain(`got OWN ${path.join(work, "own.sock")}`);
  });

  it("the proxy's relay still carries a command's connection that the rules allow", async () => {
    const allowed = new FileGuard(rules({ tool: "network", pattern: `127.0.0.1:${web}`, action: "allow", origin: "person" }), work);
    const get = `"${process.execPath}" -e 'require("http").get({host:"127.0.0.1",port:3128,path:"http://127.0.0.1:${web}/"},r=>r.pipe(process.stdout)).on("error",e=>console.log("ERR "+e.message))'`;
    const r = await runIn("model", proxied, allowed, get);
    expect(r.out).toBe("through the proxy\n");
  });
});
