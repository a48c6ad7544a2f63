import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { allowFrames } from "../../src/transport/frame-limit.js";

// A fence around a private field of `ws`: if an upgrade moves it, the raised limit is lost and
// this fails, naming the field.
let server: WebSocketServer | undefined;
afterEach(() => server?.close());

/** Sends one message of `bytes` to a server whose limit is 1 KiB, raised to 1 MiB when `raise` is set; what became of it. */
async function send(bytes: number, raise: boolean): Promise<{ received: number } | { refused: string }> {
  server = new WebSocketServer({ port: 0, host: "127.0.0.1", maxPayload: 1024 });
  await new Promise((resolve) => server!.once("listening", resolve));
  const result = new Promise<{ received: number } | { refused: string }>((resolve) => {
    server!.once("connection", (ws) => {
      if (raise) allowFrames(ws, 1024 * 1024);
      ws.on("message", (data: Buffer) => resolve({ received: data.length }));
      ws.on("error", (err: Error & { code?: string }) => resolve({ refused: err.code ?? err.message }));
    });
  });
  const port = (server.address() as { port: number }).port;
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  client.on("error", () => undefined);
  await new Promise((resolve) => client.once("open", resolve));
  client.send(Buffer.alloc(bytes, 1));
  const got = await result;
  client.terminate();
  return got;
}

describe("a connection's frame limit raised after the upgrade (ws's private receiver field)", () => {
  it("lets a frame larger than the first limit through once raised, and only then", async () => {
    expect(await send(100_000, false)).toEqual({ refused: "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" });
    expect(await send(100_000, true), "ws's receiver no longer keeps its limit in `_receiver._maxPayload`").toEqual({ received: 100_000 });
  });
});
