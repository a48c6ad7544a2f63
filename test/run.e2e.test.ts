import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_TOKEN, Cluster } from "./support/cluster.js";

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");
const NO_MODEL = { ...process.env, GATEHOUSE_MODEL: "", CI: "" };

let cluster: Cluster | undefined;
let root: string | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function folder(): string {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-run-")));
  return root;
}

/** `gatehouse run ...` to its end, without a terminal. */
function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "run", ...args], { stdio: ["ignore", "pipe", "pipe"], env: NO_MODEL });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (status) => resolve({ status, stdout, stderr })));
}

const events = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { id: string; type: string; text?: string; message?: { text: string } });

describe("gatehouse run", () => {
  it("with no model configured and no scenario, says so and exits 2 without playing the tour", () => {
    const dir = folder();
    const r = spawnSync(process.execPath, [BIN, "run", "--prompt", "hi", "--dir", dir, "--data-dir", path.join(dir, "data")], {
      encoding: "utf8",
      env: NO_MODEL,
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "gatehouse: no model is configured: give --model PROVIDER:MODEL (or GATEHOUSE_MODEL; docs/models.md), or --scenario FILE for the scripted model\n",
    );
    expect(r.stdout).toBe("");
    expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
  });

  it("a missing and a malformed scenario file both exit 2, naming the file, before anything starts", () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, "bad.yaml"), "{ nope\n");
    fs.writeFileSync(path.join(dir, "bad.json"), JSON.stringify({ steps: 3 }));
    const results = ["missing.yaml", "bad.yaml", "bad.json"].map((name) => {
      const args = ["--prompt", "hi", "--dir", dir, "--data-dir", path.join(dir, "data"), "--scenario", path.join(dir, name)];
      return spawnSync(process.execPath, [BIN, "run", ...args], { encoding: "utf8", env: NO_MODEL, timeout: 20_000 });
    });
    expect(results.map((r) => r.status)).toEqual([2, 2, 2]);
    expect(results.map((r) => r.stderr.split("\n").length)).toEqual([2, 2, 2]);
    expect(results[0]!.stderr).toMatch(/^gatehouse: cannot read scenario .*missing\.yaml: ENOENT/);
    expect(results[1]!.stderr).toMatch(/^gatehouse: .*bad\.yaml: Flow map must end/);
    expect(results[2]!.stderr).toMatch(/^gatehouse: .*bad\.json: steps: /);
    expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
  });

  it("gatehouse server refuses a scenario it could not play, with exit 2, before listening", () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, "bad.yaml"), "{ nope\n");
    const r = spawnSync(
      process.execPath,
      [BIN, "server", "--port", "0", "--store", "memory", "--data-dir", path.join(dir, "data"), "--scenario", path.join(dir, "bad.yaml")],
      {
        encoding: "utf8",
        env: NO_MODEL,
        timeout: 20_000,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^gatehouse: .*bad\.yaml: Flow map must end/);
    expect(r.stdout).toBe("");
  });

  it("--json writes a message's streamed text as one line, not one per word", async () => {
    const dir = folder();
    const scenario = path.join(dir, "scenario.json");
    fs.writeFileSync(scenario, JSON.stringify({ name: "words", steps: [{ text: "one two three four five" }] }));
    const r = await run(["--prompt", "go", "--json", "--dir", dir, "--data-dir", path.join(dir, "data"), "--scenario", scenario]);
    expect(r.status, r.stderr).toBe(0);
    const all = events(r.stdout);
    const deltas = all.filter((e) => e.type === "assistant_text_delta");
    expect(deltas.map((e) => e.text)).toEqual(["one two three four five"]);
    const ids = all.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(all.find((e) => e.type === "assistant_message")?.message?.text).toBe("one two three four five");
  });

  it("--scenario with --server: the scripted model plays that scenario there, whatever the server's own model", async () => {
    cluster = await Cluster.start({ config: { model: "anthropic:claude-sonnet-4-5" }, env: { ANTHROPIC_API_KEY: "sk-never-used" } });
    const scenario = cluster.scenario("remote", [{ text: "played from the given scenario" }]);
    const r = await run(["--prompt", "go", "--server", cluster.url, "--token", CLIENT_TOKEN, "--worker", "w1", "--scenario", scenario]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("played from the given scenario");
  });
});
