import net from "node:net";

/** A TCP proxy on loopback whose connections a test can cut, to see how clients recover. */
export class Proxy {
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;
  private holding = false;

  private constructor(targetPort: number) {
    this.server = net.createServer((inbound) => {
      if (this.holding) return void inbound.destroy();
      const outbound = net.connect(targetPort, "127.0.0.1");
      for (const [a, b] of [
        [inbound, outbound],
        [outbound, inbound],
      ] as const) {
        this.sockets.add(a);
        a.pipe(b);
        a.on("error", () => b.destroy());
        a.on("close", () => (this.sockets.delete(a), b.destroy()));
      }
    });
  }

  static async start(targetPort: number): Promise<Proxy> {
    const proxy = new Proxy(targetPort);
    await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  /** Until `release`, new connections are refused: the server looks unreachable. */
  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
  }

  /** Cuts every connection through the proxy; new ones are still accepted. */
  cut(): void {
    for (const s of this.sockets) s.destroy();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
