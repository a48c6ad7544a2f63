import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hashToken } from "../../src/transport/auth.js";
import { loadServerConfig } from "../../src/config/config.js";
import { contextWindow } from "../../src/runner/context-windows.js";

function configFile(text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-config-"));
  const file = path.join(dir, "config.jsonc");
  fs.writeFileSync(file, text);
  return file;
}

const load = (text: string) => loadServerConfig(configFile(text), {}, {});

describe("the server config file", () => {
  it("accepts JSONC: comments and trailing commas", () => {
    const config = load(`{
      // the port
      "port": 7000, /* inline */
      "clientTokens": [{ "name": "ada", "token": "0123456789abcdef0123", "role": "viewer", },],
    }`);
    expect(config.port).toBe(7000);
    expect(config.clientTokens[0]).toMatchObject({ name: "ada", role: "viewer", shell: false });
  });

  it("refuses an unknown key, naming it with its line and column", () => {
    const file = configFile(`{\n  "port": 7000,\n  "tsl": "off"\n}`);
    expect(() => loadServerConfig(file, {}, {})).toThrow(`${file}:3:3: unknown key "tsl"`);
  });

  it("refuses unknown keys inside nested settings too", () => {
    expect(() => load(`{ "limits": {\n "requestsPerSecnd": 5 } }`)).toThrow(/:2:2: unknown key "limits\.requestsPerSecnd"/);
    expect(() => load(`{ "clientTokens": [{ "name": "a", "token": "0123456789abcdef0123", "role": "admin", "rol": 1 }] }`)).toThrow(
      /unknown key "clientTokens\.0\.rol"/,
    );
  });

  it("takes context windows by model and by provider, and refuses a share of the window past 1", () => {
    const config = load(`{ "context": { "compactAt": 0.5, "windows": { "lab:qwen": 65536, "ollama": 8192 } } }`);
    expect(config.context).toEqual({ compactAt: 0.5, windows: { "lab:qwen": 65536, ollama: 8192 } });
    expect(contextWindow("lab:qwen", config.context.windows)).toBe(65536);
    expect(contextWindow("ollama:llama3.1:8b", config.context.windows)).toBe(8192);
    expect(contextWindow("openai:gpt-4o-mini", config.context.windows)).toBe(128_000);
    expect(contextWindow("lab:unknown-model", config.context.windows)).toBeUndefined();
    expect(() => load(`{ "context": {\n "compactAt": 1.5 } }`)).toThrow(/:2:15: context\.compactAt: /);
    expect(() => load(`{ "context": { "window": {} } }`)).toThrow(/unknown key "context\.window"/);
  });

  it("reports a syntax error at its line and column", () => {
    expect(() => load(`{\n  "port": 7000\n  "host": "x"\n}`)).toThrow(/:3:3: syntax error: CommaExpected/);
  });

  it("locates a wrong value and says what is expected", () => {
    expect(() => load(`{\n  "port": "x"\n}`)).toThrow(/:2:11: port: /);
    expect(() => load(`{ "clientTokens": [{ "name": "a", "token": "0123456789abcdef0123", "role": "root" }] }`)).toThrow(
      /role must be admin, approver or viewer/,
    );
  });

  it("needs exactly one of token and tokenHash, a role, and an approver's workers", () => {
    expect(() => load(`{ "clientTokens": [{ "name": "a", "role": "admin" }] }`)).toThrow(/exactly one of token and tokenHash/);
    expect(() => load(`{ "clientTokens": [{ "name": "a", "token": "0123456789abcdef0123", "role": "approver" }] }`)).toThrow(
      /approver token must list its workers/,
    );
    expect(() => load(`{ "workerTokens": [{ "name": "w", "token": "0123456789abcdef0123" }] }`)).toThrow(/workerTokens\.0\.workers/);
    const hashed = load(`{ "clientTokens": [{ "name": "a", "tokenHash": "${hashToken("0123456789abcdef0123")}", "role": "admin" }] }`);
    expect(hashed.clientTokens[0]!.tokenHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
