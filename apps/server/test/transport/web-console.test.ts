import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createConsoleHandler } from "../../src/transport/web-console.js";

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A server whose other requests answer 418, so a fall-through shows. */
async function serve(root: string | null): Promise<string> {
  const handle = createConsoleHandler(root);
  server = http.createServer((req, res) => {
    if (!handle(req, res)) res.writeHead(418).end();
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function builtConsole(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "gh-console-"));
  fs.mkdirSync(path.join(root, "assets"));
  fs.writeFileSync(path.join(root, "index.html"), "<!doctype html><title>x</title>");
  fs.writeFileSync(path.join(root, "assets", "main-ABC.js"), "console.log(1)");
  fs.writeFileSync(path.join(root, "secret.txt"), "outside assets");
  fs.writeFileSync(path.join(path.dirname(root), "gh-console-neighbour.txt"), "no");
  return root;
}

describe("the console's files", () => {
  it("serves the page and hashed assets with their types, caching and security headers", async () => {
    const url = await serve(builtConsole());
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.headers.get("content-security-policy")).toMatch(/default-src 'none'.*script-src 'self'.*connect-src 'self'.*frame-ancestors 'none'/);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const asset = await fetch(`${url}/assets/main-ABC.js`);
    expect([asset.status, asset.headers.get("content-type"), asset.headers.get("cache-control"), await asset.text()]).toEqual([
      200,
      "text/javascript; charset=utf-8",
      "public, max-age=31536000, immutable",
      "console.log(1)",
    ]);
    const head = await fetch(`${url}/`, { method: "HEAD" });
    expect([head.status, await head.text()]).toEqual([200, ""]);
  });

  it("answers nothing outside its folder, and leaves every other request to the protocol", async () => {
    const url = await serve(builtConsole());
    for (const p of ["/assets/..%2f..%2fgh-console-neighbour.txt", "/assets/%E0%A4%A", "/assets/nope.js", "/assets/a%00b"]) {
      expect((await fetch(`${url}${p}`)).status, p).toBe(404);
    }
    expect((await fetch(`${url}/secret.txt`)).status).toBe(418);
    expect((await fetch(`${url}/assets/%2e%2e/secret.txt`)).status).toBe(418);
    expect((await fetch(`${url}/session.list`)).status).toBe(418);
    expect((await fetch(`${url}/`, { method: "POST" })).status).toBe(418);
  });

  it("says how to build the console when it is not built", async () => {
    const url = await serve(null);
    const res = await fetch(`${url}/`);
    expect([res.status, await res.text()]).toEqual([503, "the web console is not built: run scripts/bootstrap\n"]);
  });
});
