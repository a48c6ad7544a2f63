import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { generate } from "selfsigned";
import { afterEach, describe, expect, it } from "vitest";
import { httpFetch } from "../../src/runner/providers/http-fetch.js";

const servers: (http.Server | https.Server)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: http.RequestListener, server: http.Server | https.Server = http.createServer()): Promise<string> {
  server.on("request", handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const scheme = server instanceof https.Server ? "https" : "http";
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as Error & { cause?: Error },
  );

describe("the providers' fetch", () => {
  it("sends the method, headers and body, and answers with the status, its text and every header", async () => {
    let seen: { method?: string; key?: string; body: string } = { body: "" };
    const url = await serve((req, res) => {
      req.on("data", (c: Buffer) => (seen.body += c.toString()));
      req.on("end", () => {
        seen = { ...seen, method: req.method, key: req.headers["x-api-key"] as string };
        res.writeHead(429, "Too Many", [
          ["set-cookie", "a=1"],
          ["set-cookie", "b=2"],
          ["retry-after", "3"],
        ]);
        res.end('{"error":"slow down"}');
      });
    });
    const res = await httpFetch(`${url}/v1/messages`, { method: "POST", headers: { "x-api-key": "k" }, body: '{"é":"ü"}' });
    expect(seen).toEqual({ method: "POST", key: "k", body: '{"é":"ü"}' });
    expect([res.status, res.statusText, res.headers.get("retry-after"), res.headers.getSetCookie()]).toEqual([429, "Too Many", "3", ["a=1", "b=2"]]);
    expect(await res.text()).toBe('{"error":"slow down"}');
  });

  it("sends a body given in parts as one body of their joined length", async () => {
    let seen = { length: "", body: "" };
    const url = await serve((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen = { length: req.headers["content-length"] ?? "", body };
        res.end("{}");
      });
    });
    const parts = [Buffer.from('{"messages":['), Buffer.from('"é",'), Buffer.from('"ü"]}')];
    await (await httpFetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: parts })).text();
    expect(seen).toEqual({ length: String(Buffer.concat(parts).length), body: '{"messages":["é","ü"]}' });
  });

  it("streams the answer as it arrives, over one kept-alive connection for requests one after another", async () => {
    let connections = 0;
    let release = () => undefined as void;
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      release = () => res.end("data: two\n\n");
    });
    servers[0]!.on("connection", () => connections++);
    for (let i = 0; i < 2; i++) {
      const reader = (await httpFetch(url, { method: "POST", body: "{}" })).body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: one\n\n");
      release();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: two\n\n");
      expect((await reader.read()).done).toBe(true);
    }
    expect(connections).toBe(1);
  });

  it("an answer cut off is an error, as fetch's is, and so is an endpoint that cannot be reached", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: half\n\n", () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const res = await httpFetch(url, { method: "POST", body: "{}" });
    const err = await failure(res.text());
    expect([err?.name, err?.message]).toEqual(["TypeError", "terminated"]);
    const refused = await failure(httpFetch("http://127.0.0.1:9/v1", { method: "POST", body: "{}" }));
    expect([refused?.name, refused?.message, refused?.cause?.message]).toEqual(["TypeError", "fetch failed", expect.stringMatching(/ECONNREFUSED/)]);
  });

  it("an abort before the answer or while it streams ends the request with the signal's reason", async () => {
    let requests = 0;
    const url = await serve((_req, res) => {
      if (++requests === 1) return;
      res.writeHead(200);
      res.write("data: one\n\n");
    });
    const early = new AbortController();
    const pending = httpFetch(url, { method: "POST", body: "{}", signal: early.signal });
    setTimeout(() => early.abort(), 50);
    expect((await failure(pending))?.name).toBe("AbortError");
    const late = new AbortController();
    const reader = (await httpFetch(url, { method: "POST", body: "{}", signal: late.signal })).body!.getReader();
    await reader.read();
    late.abort();
    expect((await failure(reader.read()))?.name).toBe("AbortError");
  });

  it("an endpoint silent for the idle time is given up with a reason", async () => {
    const url = await serve(() => undefined);
    const err = await failure(httpFetch(url, { method: "POST", body: "{}" }, 200));
    expect([err?.message, err?.cause?.message]).toEqual(["fetch failed", "no answer for 0.2 s"]);
  });

  it("checks an https endpoint's certificate: a self-signed one is refused", async () => {
    const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], { keyType: "ec", algorithm: "sha256" });
    const url = await serve((_req, res) => res.end("{}"), https.createServer({ key: pems.private, cert: pems.cert }));
    const err = await failure(httpFetch(url, { method: "POST", body: "{}" }));
    expect([err?.message, err?.cause?.message]).toEqual(["fetch failed", expect.stringMatching(/self[- ]signed/i)]);
  });

  it("a status no web response can carry (1xx, 600 and up) is a failed request naming it, never a crash", async () => {
    for (const status of ["101 Switching Protocols", "999 Odd"]) {
      const raw = net.createServer((socket) => socket.once("data", () => socket.end(`HTTP/1.1 ${status}\r\ncontent-length: 2\r\n\r\n{}`)));
      await new Promise<void>((r) => raw.listen(0, "127.0.0.1", r));
      const err = await failure(httpFetch(`http://127.0.0.1:${(raw.address() as AddressInfo).port}`, { method: "POST", body: "{}" }));
      raw.close();
      expect([err?.message, err?.cause?.message]).toEqual(["fetch failed", `the endpoint answered with HTTP status ${status.split(" ")[0]}`]);
    }
  });

  it("a status without a body answers with none", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const res = await httpFetch(url, { method: "POST", body: "{}" });
    expect([res.status, res.body]).toEqual([204, null]);
  });
});
