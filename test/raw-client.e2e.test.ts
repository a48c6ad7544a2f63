import http from "node:http";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_TOKEN, Cluster, waitUntil } from "./support/cluster.js";

/**
 * A client that speaks the wire format by hand, as one in any language would: JSON over a plain
 * WebSocket, no tRPC library. See docs/protocol.md, "The wire format".
 */
class RawClient {
  private nextId = 1;
  readonly frames: Record<string, unknown>[] = [];
  pings = 0;

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const text = String(data);
      if (text === "PING") {
        this.pings++;
        return socket.send("PONG");
      }
      this.frames.push(JSON.parse(text) as Record<string, unknown>);
    });
  }

  static async open(url: string, token: string): Promise<RawClient> {
    const socket = new WebSocket(`${url}?connectionParams=1`);
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    socket.send(JSON.stringify({ method: "connectionParams", data: { token } }));
    return new RawClient(socket);
  }

  send(method: "query" | "mutation" | "subscription", path: string, input: unknown): number {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ id, method, params: { path, input } }));
    return id;
  }

  /** The first frame for request `id` that `match` accepts, waited for. */
  async frame(id: number, match: (f: Record<string, any>) => boolean = () => true): Promise<Record<string, any>> {
    let found: Record<string, any> | undefined;
    await waitUntil(() => (found = this.frames.find((f) => f.id === id && match(f))) !== undefined, 10_000, `a frame for request ${id}`);
    return found!;
  }

  async call(method: "query" | "mutation", path: string, input: unknown): Promise<any> {
    const reply = await this.frame(this.send(method, path, input));
    if (reply.error) throw new Error(`${path}: ${reply.error.message}`);
    return reply.result.data;
  }

  /** Ends a subscription; the server confirms with `stopped`. */
  stop(id: number): void {
    this.socket.send(JSON.stringify({ id, method: "subscription.stop" }));
  }

  close(): void {
    this.socket.close();
  }
}

let cluster: Cluster | undefined;
let raw: RawClient | undefined;
afterEach(async () => {
  raw?.close();
  await cluster?.stop();
  cluster = raw = undefined;
});

describe("the protocol without a tRPC library", () => {
  it("a raw WebSocket client creates a session, follows its events, answers an approval and sees the result", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask"}` });
    raw = await RawClient.open(cluster.url, CLIENT_TOKEN);
    const scenario = cluster.scenario("raw", [
      { text: "Writing.", toolCalls: [{ tool: "shell_exec", args: { command: "echo raw-$((20+22))" } }] },
      { text: "Done: {{lastResult}}" },
    ]);
    const session = await raw.call("mutation", "session.create", { workerId: "w1", scenario });
    expect(session).toMatchObject({ workerId: "w1", mode: "default", status: "idle" });

    const sub = raw.send("subscription", "agent.onEvents", { sessionId: session.id, lastEventId: null });
    expect((await raw.frame(sub)).result).toEqual({ type: "started" });
    expect(await raw.call("mutation", "agent.prompt", { sessionId: session.id, text: "go" })).toEqual({ accepted: true });

    // A tracked event: `result.data` is `{ id, data: event }`, and `result.id` is the id to resume from.
    const event = async (type: string) => (await raw!.frame(sub, (f) => f.result?.type === "data" && f.result.data.data.type === type)).result;
    const ask = await event("tool_approval_required");
    expect(ask.id).toMatch(/^\d+$/);
    expect(ask.data.id).toBe(ask.id);
    expect(ask.data.data).toMatchObject({ toolName: "shell_exec", arguments: JSON.stringify({ command: "echo raw-$((20+22))" }), suggestedPattern: "echo *" });
    expect(await raw.call("mutation", "tool.approve", { sessionId: session.id, approvalId: ask.data.data.approvalId })).toEqual({ applied: true });

    expect((await event("tool_result")).data.data).toMatchObject({ outcome: "ok", output: "raw-42\n", exitCode: 0 });
    expect((await event("turn_ended")).data.data).toMatchObject({ reason: "completed" });
    expect((await event("assistant_message")).data.data.message.text).toBe("Writing.");

    const bad = await raw.frame(raw.send("mutation", "tool.approve", { sessionId: session.id }));
    expect(bad.error).toMatchObject({ message: "approvalId: approvalId must be a string", data: { code: "BAD_REQUEST" } });
    await waitUntil(() => raw!.pings > 0, 5000, "a PING from the server");
    raw.stop(sub);
    expect((await raw.frame(sub, (f) => f.result?.type === "stopped")).result).toEqual({ type: "stopped" });
  });

  it("over plain HTTP: a mutation is a POST, a subscription a stream of server-sent events", async () => {
    cluster = await Cluster.start();
    const auth = { authorization: `Bearer ${CLIENT_TOKEN}` };
    const input = encodeURIComponent(JSON.stringify({ lastEventId: null }));
    let stream = "";
    const req = http.get(`http://127.0.0.1:${cluster.port}/agent.onEvents?input=${input}`, { headers: { ...auth, accept: "text/event-stream" } }, (res) => {
      expect(res.headers["content-type"]).toMatch(/^text\/event-stream/);
      res.on("data", (d: Buffer) => (stream += d.toString()));
    });
    req.on("error", () => undefined); // ended by the test below
    await waitUntil(() => stream.includes("event: connected"), 10_000, "the stream to open");
    const created = await fetch(`http://127.0.0.1:${cluster.port}/session.create`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ workerId: "w1" }),
    });
    const session = ((await created.json()) as { result: { data: { id: string } } }).result.data;
    await waitUntil(() => stream.includes("session_created"), 10_000, "the session_created event");
    req.destroy();
    const block = stream.split("\n\n").find((b) => b.includes("session_created"))!;
    const id = /^id: (\d+)$/m.exec(block)?.[1];
    const event = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as { type: string; sessionId: string };
    expect(id).toMatch(/^\d+$/);
    expect(event).toMatchObject({ type: "session_created", sessionId: session.id });
  });
});
