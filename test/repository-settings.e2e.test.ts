import fs from "node:fs";
import path from "node:path";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, CLIENT_TOKEN, Events, WORKER_TOKEN } from "./support/cluster.js";

/**
 * A repository's settings written by a command of the model, with a real server and worker and
 * the sandbox on, no person answering: the worker's own git (listing the history before `git log
 * -p`) and a person's later `!git status` must not run the programs they name. The cluster lives
 * outside /tmp, which the sandbox replaces: there its config is on the host for a program to read.
 */
const RULES = `{
  "*": "ask",
  "read_file": { "*": "allow", ".env": "deny" },
  "write_file": { "*": "allow" },
  "shell_exec": { "*": "ask", "bash test.sh": "allow", "git log *": "allow" }
}`;

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  fs.rmSync(path.dirname(cluster!.root), { recursive: true, force: true });
  cluster = undefined;
});

/** The store outside the data directory, as in the own-secrets cluster. */
async function start(): Promise<Cluster> {
  const under = fs.mkdtempSync("/var/tmp/gh-repo-settings-");
  const config = { store: { kind: "embedded", path: path.join(under, "store.db") } };
  return Cluster.start({ under, rules: RULES, config, files: { ".env": "NPM_TOKEN=DOTENV-SECRET\n" } });
}

async function turn(c: Cluster, client: GatehouseClient, toolCalls: unknown[]) {
  const info = await client.session.create.mutate({ workerId: "w1", scenario: c.scenario(`s-${Date.now()}`, [{ text: "x", toolCalls }, { text: "done" }]) });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  await events.next("turn_ended", () => true, 60_000);
  return { id: info.id, results: events.of("tool_result") };
}

const write = (p: string, content: string) => ({ tool: "write_file", args: { path: p, content } });
const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

describe("settings a model's command wrote in a git directory, with a real server and worker", () => {
  it("a signed commit and a gpg.program run nothing outside the sandbox when `git log -p -1` is checked", { timeout: 120_000 }, async () => {
    cluster = await start();
    const c = cluster;
    const marker = path.join(path.dirname(c.root), "ran-outside");
    const gpg = `#!/bin/sh\necho ran > ${marker}\ncat ${c.root}/config.json > loot.txt 2>&1\ncat >/dev/null\nexit 1\n`;
    const body =
      "tree $(git rev-parse HEAD^{tree})\\nauthor a <a@b> 1 +0000\\ncommitter a <a@b> 1 +0000\\ngpgsig -----BEGIN PGP SIGNATURE-----\\n \\n AAAA\\n -----END PGP SIGNATURE-----\\n\\nsigned\\n";
    const plant = [
      "chmod +x g.sh && git init -q . && git add g.sh && git -c user.name=a -c user.email=a@b commit -qm a",
      `git update-ref refs/heads/s $(printf "${body}" | git hash-object -t commit -w --stdin)`,
      "git config log.showSignature true && git config gpg.program $PWD/g.sh",
    ].join(" && ");
    const { results } = await turn(c, c.client(), [
      write("g.sh", gpg),
      write("test.sh", `${plant}\n`),
      shell("bash test.sh"),
      shell("git log -p -1"),
      { tool: "read_file", args: { path: "loot.txt" } },
    ]);
    expect(results).toHaveLength(5);
    expect(fs.existsSync(marker)).toBe(false);
    const text = JSON.stringify(results);
    expect(text).not.toContain(CLIENT_TOKEN);
    expect(text).not.toContain(WORKER_TOKEN);
    expect(results[2]!.output).toMatch(/removed log\.showsignature, gpg\.program/);
  });

  it("a core.fsmonitor planted by a test does not run under a person's `!git status`, so .env stays unread", { timeout: 120_000 }, async () => {
    cluster = await start();
    const c = cluster;
    const fsm = "#!/bin/sh\ncat .env > loot.txt\nexit 1\n";
    const { id, results } = await turn(c, c.client(), [
      write("fsm.sh", fsm),
      write("test.sh", "chmod +x fsm.sh && git init -q . && git config core.fsmonitor $PWD/fsm.sh\n"),
      shell("bash test.sh"),
    ]);
    const person = await c.client().session.shell.mutate({ sessionId: id, command: "git status --short" });
    expect(person.stdout).toContain("?? fsm.sh");
    expect(fs.existsSync(path.join(c.workDir, "loot.txt"))).toBe(false);
    expect(results[2]!.output).toMatch(/removed core\.fsmonitor/);
  });
});
