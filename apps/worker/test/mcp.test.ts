import { describe, expect, it } from "vitest";
import { McpConfigError } from "../src/errors.js";
import { parseMcpConfig } from "../src/mcp/config.js";
import { nameTools, qualifiedName, TOOL_NAME } from "../src/mcp/names.js";
import { mcpResult } from "../src/mcp/results.js";
import { OUTPUT_LIMIT } from "../src/tool.js";

const WORK = "/work/project";
const parse = (text: string, env: NodeJS.ProcessEnv = {}) => parseMcpConfig(text, "mcp.jsonc", WORK, env);
const failure = (text: string, env: NodeJS.ProcessEnv = {}) => {
  try {
    parse(text, env);
  } catch (err) {
    if (err instanceof McpConfigError) return err.message;
    throw err;
  }
  throw new Error("parsed without an error");
};

describe("MCP configuration", () => {
  it("takes at most as many servers as a worker may report", () => {
    const servers = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`s${i}`, { command: "node" }]));
    expect(failure(JSON.stringify({ mcpServers: servers }))).toMatch(/^mcp\.jsonc:1:\d+: mcpServers: at most 100 servers$/);
  });

  it("reads stdio and Streamable HTTP servers, with comments, relative cwd and ${VAR} secrets", () => {
    const servers = parse(
      `{
      // two servers
      "mcpServers": {
        "fs": { "command": "node", "args": ["server.js"], "env": { "KEY": "\${FS_KEY}" }, "cwd": "tools" },
        "github": { "url": "https://example.test/mcp", "headers": { "Authorization": "Bearer \${GH_TOKEN}" } },
      },
    }`,
      { FS_KEY: "k1", GH_TOKEN: "t2" },
    );
    expect(servers).toEqual([
      { name: "fs", kind: "stdio", command: "node", args: ["server.js"], env: { KEY: "k1" }, cwd: "/work/project/tools" },
      { name: "github", kind: "http", url: new URL("https://example.test/mcp"), headers: { Authorization: "Bearer t2" } },
    ]);
    expect(parse(`{"mcpServers": {"a": {"command": "x"}}}`)[0]).toMatchObject({ args: [], env: {}, cwd: WORK });
  });

  it.each([
    [`{"mcpServers": {"a": {"command": "x"},,}}`, /^mcp\.jsonc:1:39: syntax error: /],
    [
      `{\n  "mcpServers": {\n    "my_server": {"command": "x"}\n  }\n}`,
      /^mcp\.jsonc:3:18: mcpServers\.my_server: server name "my_server" may hold letters, digits and '-' only/,
    ],
    [`{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`, /mcpServers\.a: give either a command \(stdio\) or a url/],
    [`{"mcpServers": {"a": {}}}`, /mcpServers\.a: give either a command/],
    [`{"mcpServers": {"a": {"command": "x", "args": "y"}}}`, /mcpServers\.a\.args: must be an array of strings/],
    [`{"mcpServers": {"a": {"command": "x", "cmd": "y"}}}`, /mcpServers\.a\.cmd: unknown field for a stdio server/],
    [`{"mcpServers": {"a": {"url": "ftp://h/x"}}}`, /mcpServers\.a\.url: must be an http:\/\/ or https:\/\/ URL/],
    [`{"mcpServers": {"a": {"url": "not a url"}}}`, /mcpServers\.a\.url: "not a url" is not a URL/],
    [
      `{"mcpServers": {"a": {"url": "http://h", "headers": {"x": "\${NOPE}"}}}}`,
      /mcpServers\.a\.headers\.x: \$\{NOPE\} is not set in the worker's environment/,
    ],
    [
      `{"mcpServers": {"a": {"command": "x", "env": {"T": "\${GATEHOUSE_WORKER_TOKEN}"}}}}`,
      /mcpServers\.a\.env\.T: \$\{GATEHOUSE_WORKER_TOKEN\} is a Gatehouse token, which is never given to an MCP server/,
    ],
    [`{"servers": {}}`, /servers: unknown field/],
    [`[]`, /the configuration must be a JSON object/],
  ])("%s is refused, naming the line and field", (text, message) => {
    expect(failure(text)).toMatch(message);
  });
});

describe("MCP tool names", () => {
  it("are {server}_{tool} in the characters model APIs accept", () => {
    expect(qualifiedName("github", "create_issue")).toBe("github_create_issue");
    expect(qualifiedName("demo", "write.note")).toBe("demo_write_note");
    expect(qualifiedName("x", "héllo wörld/1")).toBe("x_h_llo_w_rld_1");
  });

  it("a long name is cut to 64 characters and keeps apart from its neighbours", () => {
    const a = qualifiedName("server", `${"a".repeat(80)}_one`);
    const b = qualifiedName("server", `${"a".repeat(80)}_two`);
    expect([a.length, b.length]).toEqual([64, 64]);
    expect(a).not.toBe(b);
    expect(TOOL_NAME.test(a)).toBe(true);
  });

  it("a name two tools would share, or a built-in's name, is given to none of them", () => {
    const tools = ["a.b", "a_b", "c", "file"].map((name) => ({ name, item: name }));
    const { named, refused } = nameTools("read", tools, new Set(["read_file"]));
    expect(named).toEqual([{ name: "read_c", item: "c" }]);
    expect(refused).toEqual([
      'read_a_b would name 2 tools of MCP server read ("a.b", "a_b"): none of them is offered',
      'read_file (tool "file" of MCP server read) is the name of a built-in tool: not offered; rename the server',
    ]);
  });
});

describe("MCP tool results", () => {
  it("text, images, audio, embedded and linked resources become text in their order", () => {
    const r = mcpResult({
      content: [
        { type: "text", text: "one" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "audio", data: "AAA=", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "alpha" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAAAAAA" } },
        { type: "resource_link", uri: "file:///c", name: "c", description: "see" },
      ],
    });
    expect(r).toEqual({
      ok: true,
      output:
        "one\n[image: image/png, 3 bytes, not shown]\n[audio: audio/wav, 2 bytes, not shown]\n[resource file:///a.txt (text/plain)]\nalpha\n" +
        '[resource file:///b.bin] 6 bytes of binary content, not shown\n[resource link: file:///c "c" — see]',
    });
  });

  it("isError makes a failed result; structured content stands in for missing content; output is cut", () => {
    expect(mcpResult({ isError: true, content: [{ type: "text", text: "no" }] })).toEqual({ ok: false, output: "no" });
    expect(mcpResult({ content: [], structuredContent: { n: 1 } })).toEqual({ ok: true, output: '{\n  "n": 1\n}' });
    const cut = mcpResult({ content: [{ type: "text", text: "x".repeat(OUTPUT_LIMIT + 10) }] });
    expect(cut.output).toMatch(/\[output cut: 10 more characters\]$/);
  });
});
