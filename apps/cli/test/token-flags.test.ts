import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CliError } from "../src/cli-error.js";
import { requiredToken, tokenFrom, WORKER_TOKEN } from "../src/token-flags.js";

const TOKEN = "worker-token-0123456789";

describe("a token from a file, the environment or (warned about) a flag", () => {
  const file = (text: string) => {
    const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gh-token-")), "token");
    fs.writeFileSync(f, text);
    return f;
  };

  it("reads the first line of --token-file, and says nothing", () => {
    const said: string[] = [];
    expect(tokenFrom({ "token-file": file(`${TOKEN}\r\nsecond line\n`) }, WORKER_TOKEN, (l) => said.push(l), {})).toBe(TOKEN);
    expect(said).toEqual([]);
  });

  it("reads the environment when no flag is given", () => {
    expect(tokenFrom({}, WORKER_TOKEN, () => undefined, { GATEHOUSE_WORKER_TOKEN: TOKEN })).toBe(TOKEN);
    expect(tokenFrom({}, WORKER_TOKEN, () => undefined, {})).toBeUndefined();
  });

  it("takes --token but warns that every process can read it there", () => {
    const said: string[] = [];
    expect(tokenFrom({ token: TOKEN }, WORKER_TOKEN, (l) => said.push(l), {})).toBe(TOKEN);
    expect(said).toEqual([expect.stringMatching(/--token shows the token in this process's command line.*GATEHOUSE_WORKER_TOKEN or --token-file/)]);
    expect(said.join()).not.toContain(TOKEN);
  });

  it("names the problem: both flags, an unreadable or empty file, no token at all", () => {
    expect(() => tokenFrom({ token: TOKEN, "token-file": "/x" }, WORKER_TOKEN)).toThrow(new CliError("give --token or --token-file, not both"));
    expect(() => tokenFrom({ "token-file": "/nonexistent/token" }, WORKER_TOKEN)).toThrow("--token-file: cannot read /nonexistent/token: ENOENT");
    const empty = file("\n");
    expect(() => tokenFrom({ "token-file": empty }, WORKER_TOKEN)).toThrow(`--token-file: ${empty} is empty`);
    expect(() => requiredToken({}, WORKER_TOKEN, undefined, {})).toThrow("missing token: set GATEHOUSE_WORKER_TOKEN, or give --token-file FILE");
  });
});
