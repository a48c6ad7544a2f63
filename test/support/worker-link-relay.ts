import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";

/**
 * A relay on loopback between a worker and its server: each message the server sends is handed to
 * `before` first, and delivered once it returns, so a test can act exactly between the server's
 * decision and the worker's receipt of the call.
 */
export class WorkerLinkRelay {
  private constructor(private readonly wss: WebSocketServer) {}

  static async start(serverUrl: string, before: (message: Record<string, unknown>) => void): Promise<WorkerLinkRelay> {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    wss.on("connection", (worker, req) => {
      const upstream = new WebSocket(serverUrl + (req.url ?? "/"), { headers: { authorization: req.headers.authorization ?? "" } });
      const early: string[] = [];
      worker.on("message", (data) => (upstream.readyState === WebSocket.OPEN ? upstream.send(String(data)) : early.push(String(data))));
      upstream.on("open", () => early.splice(0).forEach((m) => upstream.send(m)));
      upstream.on("message", (data) => {
        before(JSON.parse(String(data)) as Record<string, unknown>);
        worker.send(String(data));
      });
      upstream.on("close", () => worker.close());
      upstream.on("error", () => worker.terminate());
      worker.on("close", () => upstream.close());
    });
    await new Promise((resolve) => wss.once("listening", resolve));
    return new WorkerLinkRelay(wss);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }
}
