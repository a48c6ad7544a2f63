import { initTRPC, tracked } from "@trpc/server";
import { applyWSSHandler, type Encoder } from "@trpc/server/adapters/ws";
import { createTRPCClient, createWSClient, wsLink } from "@trpc/client";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { eventFrames, eventText } from "../../src/store/event-text.js";

// A fence around tRPC's experimental encoder: a real subscription over tRPC's WebSocket adapter
// must hand its frames to the encoder, with the event where eventFrames looks for it.
let close: (() => void) | undefined;
afterEach(() => close?.());

describe("event frames through tRPC's WebSocket adapter (experimental_encoder)", () => {
  it("are encoded by eventFrames, with each event at result.data.data, and arrive whole", async () => {
    const event = { type: "tool_result", sessionId: "s1", output: 'a "quoted" line\n' };
    eventText(event);
    const t = initTRPC.create();
    const router = t.router({
      events: t.procedure.subscription(async function* () {
        yield tracked("1", event);
      }),
    });
    const carried: unknown[] = [];
    const watching: Encoder = {
      encode(message) {
        carried.push((message as { result?: { data?: { data?: unknown } } }).result?.data?.data);
        return eventFrames.encode(message);
      },
      decode: (data) => eventFrames.decode(data),
    };
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => wss.once("listening", resolve));
    const handler = applyWSSHandler({ wss, router, experimental_encoder: watching });
    const ws = createWSClient({ url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, WebSocket: WebSocket as never });
    const client = createTRPCClient<typeof router>({ links: [wsLink({ client: ws })] });
    close = () => {
      void ws.close();
      handler.broadcastReconnectNotification();
      wss.close();
    };
    const got = await new Promise<unknown>((resolve, reject) => {
      const sub = client.events.subscribe(undefined, {
        onData: (d) => {
          sub.unsubscribe();
          resolve(d);
        },
        onError: reject,
      });
    });
    expect(got).toEqual({ id: "1", data: event });
    expect(carried, "tRPC no longer calls experimental_encoder, or no longer carries the event at result.data.data").toContain(event);
  });
});
