import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import WebSocket, { WebSocketServer } from "ws";
import { coalesceWrites } from "../../src/transport/coalesced-writes.js";

let server: net.Server | undefined;
afterEach(() => server?.close());

/** A connected pair on loopback: the server's end, coalesced, and what the client end receives, chunk by chunk. */
async function pair(): Promise<{ sending: net.Socket; chunks: string[]; client: net.Socket }> {
  const chunks: string[] = [];
  const accepted = new Promise<net.Socket>((resolve) => (server = net.createServer(resolve)));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const client = net.connect((server!.address() as net.AddressInfo).port, "127.0.0.1");
  client.on("data", (d) => chunks.push(d.toString()));
  const sending = await accepted;
  coalesceWrites(sending);
  return { sending, chunks, client };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
};

describe("coalesced writes", () => {
  it("sends what one callback and its promise continuations write in one piece, and later writes after it", async () => {
    const { sending, chunks, client } = await pair();
    sending.write("a");
    await Promise.resolve();
    sending.write("b");
    sending.write("c");
    // Still held: a socket that is not corked hands a write to the system at once.
    expect(sending.writableLength).toBe(3);
    await until(() => chunks.join("") === "abc");
    expect(sending.writableLength).toBe(0);
    expect(chunks).toEqual(["abc"]);
    setTimeout(() => sending.write("d"), 1);
    await until(() => chunks.join("") === "abcd");
    expect(chunks).toEqual(["abc", "d"]);
    client.destroy();
    sending.destroy();
  });
});

describe("coalesced writes under ws (ws writes its frames through socket.write)", () => {
  it("holds the frames one callback sends until it is done, then the client gets them all", async () => {
    const http = createServer();
    const wss = new WebSocketServer({ noServer: true });
    let held = -1;
    http.on("upgrade", (req, socket, head) => {
      coalesceWrites(socket);
      wss.handleUpgrade(req, socket, head, (ws) => {
        for (const text of ["one", "two", "three"]) ws.send(text);
        held = socket.writableLength;
      });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(http.address() as net.AddressInfo).port}`);
    const got: string[] = [];
    client.on("message", (d: Buffer) => got.push(d.toString()));
    await until(() => got.length === 3);
    expect(got).toEqual(["one", "two", "three"]);
    expect(held, "ws no longer writes its frames through socket.write: they leave one system call each").toBeGreaterThan(0);
    client.terminate();
    wss.close();
    http.close();
  });
});
