import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Log } from "@gatehouse/log";
import type { EgressGate, GateAnswer } from "./egress-gate.js";
import { headEnd, httpRefusal, parseHttpProxyRequest } from "./http-proxy-request.js";
import { readUntil } from "./socket-reader.js";
import { checkGreeting, greetingEnd, parseRequest, reply, requestEnd, SOCKS_REPLY, SOCKS_VERSION } from "./socks5.js";

const HEAD_LIMIT = 64 * 1024;
const HEAD_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 30_000;

/** What the proxy saw of one connection: for the command's output, and for tests. */
export interface EgressRecord {
  label: string;
  allowed: boolean;
  reason?: string;
}

/**
 * One command's way out: a Unix socket the sandbox reaches, speaking HTTP proxy (CONNECT and
 * plain http:// requests) and SOCKS5 on the same socket, each connection judged by the gate and
 * made to the address that was judged.
 */
export class EgressProxy {
  readonly socketPath: string;
  readonly records: EgressRecord[] = [];
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly dir: string;

  private constructor(
    private readonly gate: EgressGate,
    private readonly log: Log,
  ) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-egress-"));
    this.socketPath = path.join(this.dir, "proxy.sock");
    this.server = net.createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
  }

  /** A proxy listening on a socket of its own, in a folder only this user may enter. */
  static async open(gate: EgressGate, log: Log): Promise<EgressProxy> {
    const proxy = new EgressProxy(gate, log);
    await new Promise<void>((resolve, reject) => proxy.server.once("error", reject).listen(proxy.socketPath, () => resolve()));
    return proxy;
  }

  /**
   * The same, for a caller that cannot wait: a Unix socket is bound before listen() returns, so a
   * process started next finds it; a later failure is logged.
   */
  static openNow(gate: EgressGate, log: Log): EgressProxy {
    const proxy = new EgressProxy(gate, log);
    proxy.server.on("error", (err) => log.warn("a network proxy stopped listening", { error: err.message }));
    proxy.server.listen(proxy.socketPath);
    return proxy;
  }

  /** Stops listening and ends every connection still open. */
  close(): void {
    this.server.close();
    for (const s of this.sockets) s.destroy();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private track(socket: net.Socket): net.Socket {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    return socket;
  }

  private accept(client: net.Socket): void {
    this.track(client);
    readUntil(client, (b) => (b.length > 0 ? 0 : null), HEAD_LIMIT, HEAD_TIMEOUT_MS)
      .then(({ rest }) => (rest[0] === SOCKS_VERSION ? this.socks(client, rest) : this.http(client, rest)))
      .catch((err: Error) => {
        this.log.debug("a proxy connection failed", { error: err.message });
        client.destroy();
      });
  }

  private async http(client: net.Socket, already: Buffer): Promise<void> {
    const { head, rest } = await readUntil(client, headEnd, HEAD_LIMIT, HEAD_TIMEOUT_MS, already);
    let request;
    try {
      request = parseHttpProxyRequest(head);
    } catch (err) {
      client.end(httpRefusal(400, "request", (err as Error).message));
      return;
    }
    const answer = await this.judge(request.host, request.port);
    if (!answer.ok) return void client.end(httpRefusal(403, answer.label, answer.reason));
    const upstream = await this.connect(answer, request.port).catch((err: Error) => {
      client.end(httpRefusal(502, answer.label, err.message));
      return null;
    });
    if (!upstream) return;
    if (request.kind === "connect") client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    else upstream.write(request.head);
    this.join(client, upstream, rest);
  }

  private async socks(client: net.Socket, already: Buffer): Promise<void> {
    const greeting = await readUntil(client, greetingEnd, 300, HEAD_TIMEOUT_MS, already);
    try {
      checkGreeting(greeting.head);
    } catch {
      client.end(Buffer.from([SOCKS_VERSION, 0xff]));
      return;
    }
    client.write(Buffer.from([SOCKS_VERSION, 0]));
    const { head, rest } = await readUntil(client, requestEnd, 300, HEAD_TIMEOUT_MS, greeting.rest);
    const request = parseRequest(head);
    if (request === "unsupported") return void client.end(reply(SOCKS_REPLY.unsupported));
    const answer = await this.judge(request.host, request.port);
    if (!answer.ok) return void client.end(reply(SOCKS_REPLY.notAllowed));
    const upstream = await this.connect(answer, request.port).catch(() => null);
    if (!upstream) return void client.end(reply(SOCKS_REPLY.refused));
    client.write(reply(SOCKS_REPLY.ok));
    this.join(client, upstream, rest);
  }

  private async judge(host: string, port: number): Promise<GateAnswer> {
    const answer = await this.gate.decide(host, port);
    this.records.push(answer.ok ? { label: answer.label, allowed: true } : { label: answer.label, allowed: false, reason: answer.reason });
    return answer;
  }

  private connect(answer: GateAnswer & { ok: true }, port: number): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const upstream = this.track(net.connect({ host: answer.address, port, allowHalfOpen: true, timeout: CONNECT_TIMEOUT_MS }));
      const fail = (err: Error) => {
        upstream.destroy();
        reject(new Error(`could not connect to ${answer.address} port ${port}: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
      };
      upstream.once("error", fail);
      upstream.once("timeout", () => fail(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`)));
      upstream.once("connect", () => {
        upstream.off("error", fail);
        upstream.setTimeout(0);
        resolve(upstream);
      });
    });
  }

  /** Bytes both ways until both sides end; either side's error ends both. */
  private join(client: net.Socket, upstream: net.Socket, rest: Buffer): void {
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.resume();
  }
}
