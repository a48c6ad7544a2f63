// A model endpoint of both API shapes for `pnpm bench:model`, run as its own process so that its
// CPU is not counted as the server's. Every request is answered with one streamed `read_file`
// call; `GET /last` returns the last request body as it was received.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { anthropic, openai } from "../test/support/wire-formats.js";

let last = "";
let calls = 0;

function answer(path: string): string[] {
  const call = { id: `call_${++calls}`, name: "read_file", argumentPieces: ['{"path":', `"src/file-${calls % 50}.ts"}`] };
  return path.endsWith("/messages") ? anthropic.stream([], [call]).events! : openai.stream([], [call]).events!;
}

const server = http.createServer((req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(last);
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    last = Buffer.concat(chunks).toString("utf8");
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(
      answer(req.url ?? "")
        .map((block) => `${block}\n\n`)
        .join(""),
    );
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
