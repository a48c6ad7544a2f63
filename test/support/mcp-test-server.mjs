// An MCP server for the tests, built on the official SDK. Over stdio by default; with --http it
// serves Streamable HTTP on a loopback port and prints {"port": N} on its first line.
// Its tools write what they saw into the current directory, so tests can check what ran.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";
const object = (properties = {}, required = []) => ({ type: "object", properties, required });

const TOOLS = {
  echo: {
    description: "Says the text back, with a picture and a resource.",
    inputSchema: object({ text: { type: "string" } }, ["text"]),
    annotations: { title: "Echo", readOnlyHint: true },
    run: ({ text }) => ({
      content: [
        { type: "text", text: `echo: ${text}` },
        { type: "image", data: PIXEL, mimeType: "image/png" },
        { type: "resource", resource: { uri: "memo://last", mimeType: "text/plain", text: `last said: ${text}` } },
      ],
    }),
  },
  "write.note": {
    description: "Writes a note into the server's directory.",
    inputSchema: object({ name: { type: "string" }, text: { type: "string" } }, ["name", "text"]),
    annotations: { destructiveHint: false },
    run: ({ name, text }) => {
      fs.writeFileSync(`note-${String(name).replace(/[^a-z0-9]/gi, "")}.txt`, String(text));
      return { content: [{ type: "text", text: `wrote note ${name}` }] };
    },
  },
  crash: {
    description: "Dies in the middle of the call.",
    inputSchema: object(),
    run: () => {
      fs.writeFileSync("crash-started.txt", String(process.pid));
      setTimeout(() => process.exit(3), 100);
      return new Promise(() => undefined);
    },
  },
  slow: {
    description: "Waits until it is cancelled, and notes the cancellation.",
    inputSchema: object(),
    annotations: { readOnlyHint: true },
    run: (_args, extra) =>
      new Promise((resolve) => {
        fs.writeFileSync("slow-started.txt", "");
        extra.signal.addEventListener("abort", () => fs.writeFileSync("slow-cancelled.txt", String(extra.signal.reason ?? "cancelled")));
        setTimeout(() => resolve({ content: [{ type: "text", text: "slow finished" }] }), 30_000).unref();
      }),
  },
  toggle: {
    description: "Withdraws echo and offers extra, announcing the change.",
    inputSchema: object(),
    run: async (_args, extra) => {
      offered.delete("echo");
      offered.add("extra");
      // Sent as part of this call, so over HTTP too it arrives before the call's result.
      await extra.sendNotification({ method: "notifications/tools/list_changed" });
      return { content: [{ type: "text", text: "toggled" }] };
    },
  },
  extra: {
    description: "Only offered after toggle.",
    inputSchema: object(),
    annotations: { readOnlyHint: true },
    run: () => ({ content: [{ type: "text", text: "extra is here" }] }),
  },
  probe: {
    description:
      "Reports what the server process can see and do: its pid, its environment's names, the first process's command line, whether it can write a file.",
    inputSchema: object({ write: { type: "string" } }, ["write"]),
    annotations: { readOnlyHint: true },
    run: ({ write }) => {
      let wrote;
      try {
        fs.writeFileSync(String(write), "written by the MCP server");
        wrote = "yes";
      } catch (err) {
        wrote = err.code;
      }
      const init = fs.readFileSync("/proc/1/cmdline", "utf8").split("\0").join(" ");
      return { content: [{ type: "text", text: JSON.stringify({ pid: process.pid, env: Object.keys(process.env).sort(), init, wrote }) }] };
    },
  },
  fetch: {
    description: "Gets an http:// URL through the proxy HTTP_PROXY names, or directly when `direct`; says what came back.",
    inputSchema: object({ url: { type: "string" }, direct: { type: "boolean" } }, ["url"]),
    annotations: { readOnlyHint: true },
    run: ({ url, direct }) =>
      new Promise((resolve) => {
        const proxy = process.env.HTTP_PROXY && !direct ? new URL(process.env.HTTP_PROXY) : null;
        const target = new URL(url);
        const options = proxy ? { host: proxy.hostname, port: proxy.port, path: url } : { host: target.hostname, port: target.port, path: target.pathname };
        const said = (text) => resolve({ content: [{ type: "text", text }] });
        http
          .get(options, (res) => {
            let body = "";
            res.on("data", (d) => (body += d));
            res.on("end", () => said(`${res.statusCode} ${body}`));
          })
          .on("error", (err) => said(`error ${err.code}`));
      }),
  },
  fails: {
    description: "Reports an error result.",
    inputSchema: object(),
    run: () => ({ isError: true, content: [{ type: "text", text: "this tool always fails" }] }),
  },
};

const offered = new Set(Object.keys(TOOLS).filter((n) => n !== "extra"));

function makeServer() {
  const server = new Server({ name: "gatehouse-test", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...offered].map((name) => ({
      name,
      description: TOOLS[name].description,
      inputSchema: TOOLS[name].inputSchema,
      ...(TOOLS[name].annotations ? { annotations: TOOLS[name].annotations } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => {
    const name = req.params.name;
    if (!offered.has(name)) return { isError: true, content: [{ type: "text", text: `no tool ${name}` }] };
    return TOOLS[name].run(req.params.arguments ?? {}, extra);
  });
  return server;
}

if (process.argv.includes("--http")) {
  const key = process.env.MCP_TEST_KEY;
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    if (key && req.headers["x-test-key"] !== key) {
      res.writeHead(401).end("wrong key");
      return;
    }
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => sessions.set(sid, transport) });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  httpServer.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: httpServer.address().port })}\n`));
} else {
  await makeServer().connect(new StdioServerTransport());
  // With --linger it keeps running after its input has ended, as some servers do.
  if (process.argv.includes("--linger")) setInterval(() => undefined, 1000);
}
