import http from "node:http";
import type { AddressInfo } from "node:net";

/** One HTTP answer: an SSE stream of raw event blocks, or a plain body; `cutAfter` drops the connection mid-stream. */
export interface ReplayResponse {
  status?: number;
  headers?: Record<string, string>;
  events?: string[];
  body?: string;
  cutAfter?: number;
}

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A local model endpoint that answers each request with the next queued response, as written. */
export class ModelReplay {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ReplayResponse[] = [];
  /** Answers a request by what it asks, before the queue is looked at; undefined leaves it to the queue. */
  route: ((body: Record<string, unknown>) => ReplayResponse | undefined) | undefined;

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<ModelReplay> {
    const server = http.createServer();
    const replay = new ModelReplay(server);
    server.on("request", (req, res) => void replay.answer(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return replay;
  }

  get baseURL(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  push(...responses: ReplayResponse[]): void {
    this.queue.push(...responses);
  }

  get remaining(): number {
    return this.queue.length;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let text = "";
    for await (const chunk of req) text += chunk;
    const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    this.requests.push({ path: req.url ?? "", headers: req.headers, body });
    const next = this.route?.(body) ?? this.queue.shift() ?? { status: 500, body: JSON.stringify({ error: { message: "the replay has no response queued" } }) };
    if (!next.events) {
      res.writeHead(next.status ?? 200, { "content-type": "application/json", ...next.headers });
      res.end(next.body ?? "");
      return;
    }
    res.writeHead(next.status ?? 200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...next.headers });
    for (const [i, block] of next.events.entries()) {
      if (next.cutAfter !== undefined && i >= next.cutAfter) {
        await new Promise((r) => setTimeout(r, 20));
        res.socket?.destroy();
        return;
      }
      res.write(`${block}\n\n`);
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  }
}
