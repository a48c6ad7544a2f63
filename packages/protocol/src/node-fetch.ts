import http from "node:http";
import https from "node:https";

const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

/**
 * A fetch for tRPC's HTTP link over node:http with keep-alive. Node's built-in fetch costs about
 * 0.5 ms more per request on loopback (measured: 0.64 ms against 0.12 ms a round trip).
 */
export const nodeFetch: typeof globalThis.fetch = (input, init) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const transport = url.protocol === "https:" ? https : http;
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const req = transport.request(url, { method: init?.method ?? "GET", headers, agent: agents[url.protocol as "http:" | "https:"], signal: init?.signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const responseHeaders = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders.set(k, Array.isArray(v) ? v.join(", ") : v);
        resolve(new Response(res.statusCode === 204 ? null : Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: responseHeaders }));
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(typeof init?.body === "string" ? init.body : undefined);
  });
