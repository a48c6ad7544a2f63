import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

export const sdk = (part: string) => pathToFileURL(createRequire(import.meta.url).resolve(`@modelcontextprotocol/sdk/${part}`)).href;

/** A stdio MCP server's module with one tool, `hello`, that says where it runs from; the SDK imported by its absolute path. */
export const HELLO_SERVER = `
import { Server } from ${JSON.stringify(sdk("server/index.js"))};
import { StdioServerTransport } from ${JSON.stringify(sdk("server/stdio.js"))};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(sdk("types.js"))};
const server = new Server({ name: "local", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: "hello", description: "Says hello", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } }],
}));
server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: "text", text: "hello from " + new URL(import.meta.url).pathname }] }));
await server.connect(new StdioServerTransport());
`;

/** A scratch folder under the system's /tmp: an empty bin folder, and a package folder holding the hello server. */
export function helloScratch(prefix: string): { scratch: string; bin: string; pkg: string } {
  const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const bin = path.join(scratch, "bin");
  const pkg = path.join(scratch, "local-mcp");
  fs.mkdirSync(bin);
  fs.mkdirSync(pkg);
  fs.writeFileSync(path.join(pkg, "server.mjs"), HELLO_SERVER);
  fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "local-mcp", version: "1.0.0", bin: "server.mjs" }));
  return { scratch, bin, pkg };
}
