import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events, waitUntil } from "./support/cluster.js";

// The race from a second session's allowed command: a process swaps notes.txt between a file and a
// link to .git/config while an accept-edits session writes notes.txt in one long batch.
const CALLS = 200;
const GIT_CONFIG = "[core]\n\tbare = false\n";
const SWAP = `fs.rmSync("t1", { force: true }); fs.symlinkSync(".git/config", "t1"); fs.renameSync("t1", "notes.txt"); fs.writeFileSync("t2", "[core]\\n"); fs.renameSync("t2", "notes.txt");`;

let cluster: Cluster | undefined;
let racer: ChildProcess | undefined;
afterEach(async () => {
  racer?.kill("SIGKILL");
  await cluster?.stop();
  cluster = racer = undefined;
});

async function startRacer(workDir: string): Promise<void> {
  const loop = `const fs = require("node:fs"); let once = false; for (;;) { try { ${SWAP} } catch {} if (!once) { once = true; process.stdout.write("go\\n"); } }`;
  racer = spawn(process.execPath, ["-e", loop], { cwd: workDir, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => racer!.stdout!.once("data", resolve));
}

describe("a name swapped to a link into .git in a loop while an accept-edits session writes it", () => {
  it("no write reaches .git/config: each that meets the link asks, naming it, and is denied", async () => {
    cluster = await Cluster.start({
      rules: `{"*": "ask", "read_file": "allow", "write_file": {"*": "ask"}}`,
      files: { ".git/config": GIT_CONFIG, ".git/HEAD": "ref: refs/heads/main\n", "notes.txt": "[core]\n" },
    });
    const client = cluster.client();
    const write = { tool: "write_file", args: { path: "notes.txt", content: "[core]\n\tfsmonitor = ./payload\n" } };
    const info = await client.session.create.mutate({
      workerId: "w1",
      mode: "accept-edits",
      scenario: cluster.scenario("s", [{ toolCalls: Array.from({ length: CALLS }, () => write) }, { text: "done" }]),
    });
    const events = new Events(client, { sessionId: info.id });
    await events.started;
    await startRacer(cluster.workDir);
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    const denied = new Set<string>();
    await waitUntil(
      async () => {
        for (const ask of events.of("tool_approval_required").filter((a) => !denied.has(a.approvalId))) {
          denied.add(ask.approvalId);
          await client.tool.deny.mutate({ sessionId: info.id, approvalId: ask.approvalId });
        }
        return events.of("turn_ended").length > 0;
      },
      120_000,
      "the turn to end",
    );
    racer!.kill("SIGKILL");
    expect(fs.readFileSync(path.join(cluster.workDir, ".git/config"), "utf8")).toBe(GIT_CONFIG);
    const asks = events.of("tool_approval_required");
    expect(asks.length).toBeGreaterThan(0);
    expect(asks.every((a) => /\.git\/config/.test(a.reason))).toBe(true);
  }, 180_000);
});
