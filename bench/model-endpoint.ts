// A model endpoint of both API shapes for the model benchmarks, run as its own process so that its
// CPU is not counted as the server's. By default every request is answered with one streamed
// `read_file` call. With BENCH_TURN_CALLS=N a request whose history ends with the user's prompt is
// answered with N `read_file` calls of BENCH_READ_PATH, and one that ends with results with text,
// which ends the turn. `GET /last` returns the last request body as it was received.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { anthropic, openai, type Call } from "../test/support/wire-formats.js";

const TURN_CALLS = Number(process.env.BENCH_TURN_CALLS ?? 0);
const READ_PATH = process.env.BENCH_READ_PATH ?? "a.txt";
let last = "";
let calls = 0;

const read = (path: string): Call => ({ id: `call_${++calls}`, name: "read_file", argumentPieces: ['{"path":', `${JSON.stringify(path)}}`] });

/** Whether the request's history ends with tool results (OpenAI `tool` messages, Anthropic `tool_result` blocks). */
function endsWithResults(body: string): boolean {
  const messages = (JSON.parse(body) as { messages: { role: string; content: unknown }[] }).messages;
  const end = messages.at(-1)!;
  return end.role === "tool" || (Array.isArray(end.content) && (end.content as { type?: string }[]).some((b) => b.type === "tool_result"));
}

function answer(path: string, body: string): string[] {
  const wire = path.endsWith("/messages") ? anthropic : openai;
  if (TURN_CALLS === 0) return wire.stream([], [read(`src/file-${calls % 50}.ts`)]).events!;
  if (endsWithResults(body)) return wire.stream(["done"]).events!;
  return wire.stream(
    [],
    Array.from({ length: TURN_CALLS }, () => read(READ_PATH)),
  ).events!;
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
      answer(req.url ?? "", last)
        .map((block) => `${block}\n\n`)
        .join(""),
    );
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
