import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events } from "./support/cluster.js";

/**
 * A FIFO an allowed test planted among git's refs, with a real server and worker and the sandbox
 * on, no person answering: `git log -p` must not print the `.env` git once tracked, and the worker
 * must stay connected (the cluster's heartbeat timeout is 3 s; git stuck on the FIFO waits 5 s).
 */
const RULES = `{ "*": "ask", "read_file": { "*": "allow", ".env": "deny" }, "write_file": { "test.sh": "allow" },
  "shell_exec": { "*": "ask", "bash test.sh": "allow", "git log *": "allow" } }`;
const SECRET = "NPM_TOKEN=HISTORY-SECRET";

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  fs.rmSync(path.dirname(cluster!.root), { recursive: true, force: true });
  cluster = undefined;
});

/** `.env` committed once, then untracked: only git's history holds it. */
function leakedHistory(workDir: string): void {
  const env = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: workDir, GIT_CONFIG_NOSYSTEM: "1" };
  const script =
    "git init -q . && git add .env && git -c user.name=a -c user.email=a@b commit -qm oops && git rm -q --cached .env && git -c user.name=a -c user.email=a@b commit -qm gone";
  execFileSync("bash", ["-c", script], { cwd: workDir, env });
}

describe("a FIFO planted among git's refs, with a real server and worker", () => {
  it("`git log -p` is refused naming the FIFO, prints no .env, and the worker stays connected", { timeout: 120_000 }, async () => {
    const under = fs.mkdtempSync("/var/tmp/gh-history-unlisted-");
    // The store outside the data directory, as in the repository-settings cluster.
    const config = { store: { kind: "embedded", path: path.join(under, "store.db") } };
    cluster = await Cluster.start({ under, rules: RULES, config, files: { ".env": `${SECRET}\n` } });
    const c = cluster;
    leakedHistory(c.workDir);
    const client = c.client();
    const toolCalls = [
      { tool: "write_file", args: { path: "test.sh", content: "mkfifo .git/refs/heads/zz\n" } },
      { tool: "shell_exec", args: { command: "bash test.sh" } },
      { tool: "shell_exec", args: { command: "git log -p" } },
      { tool: "read_file", args: { path: "test.sh" } },
    ];
    const info = await client.session.create.mutate({ workerId: "w1", scenario: c.scenario("s-fifo", [{ text: "x", toolCalls }, { text: "done" }]) });
    const events = new Events(client, { sessionId: info.id });
    await new Promise((r) => setTimeout(r, 100));
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    await events.next("turn_ended", () => true, 60_000);
    const results = events.of("tool_result");
    expect(results).toHaveLength(4);
    expect(JSON.stringify(results)).not.toContain("HISTORY-SECRET");
    expect(results[2]!.output).toMatch(/could not list \(.*\.git\/refs\/heads\/zz, one of git's files, is not a regular file\)/);
    expect(results[3]!.output).toContain("mkfifo");
    const workers = await client.workers.list.query();
    expect(workers.find((w) => w.id === "w1")?.connected).toBe(true);
  });
});
