// Shell figures for the end-to-end benchmark: shell calls through a server and workers with and
// without the sandbox, on a small work directory and on a generated 20,000-file repository.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DEFAULT_RULES_TEXT } from "@gatehouse/policy";
import type { GatehouseClient } from "@gatehouse/protocol";
import { percentile } from "./measure.js";

/** `files` files in folders of 20, three levels deep, with a `.env` in one folder of 200 (five in 20,000 files). */
export function generateRepository(dir: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const folder = Math.floor(i / 20);
    const sub = path.join(dir, `p${folder % 10}`, `m${Math.floor(folder / 10) % 10}`, `f${folder}`);
    if (i % 20 === 0) fs.mkdirSync(sub, { recursive: true });
    const name = i % 20 === 0 && folder % 200 === 0 ? ".env" : `file${i}.ts`;
    fs.writeFileSync(path.join(sub, name), "x");
  }
}

/** A worker process on `dir` with the given sandbox setting. */
export function startShellWorker(bin: string, url: string, token: string, id: string, dir: string, sandbox: "off" | "required"): ChildProcess {
  return spawn(process.execPath, [bin, "worker", "--server", url, "--token", token, "--id", id, "--dir", dir, "--sandbox", sandbox], { stdio: "ignore" });
}

/** Rules for a benchmark worker: the defaults with shell commands allowed. */
export function allowShell(dataDir: string, workerId: string): void {
  const dir = path.join(dataDir, "workers", workerId);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "permissions.jsonc"), DEFAULT_RULES_TEXT.replace(`"shell_exec": "ask"`, `"shell_exec": "allow"`));
}

/** `n` allowed `echo` calls one after another on one worker: calls per second and per-call latency. */
export async function shellCalls(
  client: GatehouseClient,
  workerId: string,
  label: string,
  n: number,
  scenario: (name: string, steps: unknown[]) => string,
  waitFor: (check: () => boolean, what: string) => Promise<void>,
): Promise<void> {
  const file = scenario(`shell-${workerId}`, [
    ...Array.from({ length: n }, (_, i) => ({ toolCalls: [{ tool: "shell_exec", args: { command: `echo ${i}` } }] })),
    { text: "done" },
  ]);
  const s = await client.session.create.mutate({ workerId, scenario: file });
  const elapsed: number[] = [];
  let ok = 0;
  let ended = false;
  const sub = client.agent.onEvents.subscribe(
    { sessionId: s.id },
    {
      onData: (d) => {
        const e = d.data as { type: string; elapsedMs?: number; ok?: boolean };
        if (e.type === "tool_result") {
          elapsed.push(e.elapsedMs!);
          if (e.ok) ok++;
        }
        if (e.type === "turn_ended") ended = true;
      },
    },
  );
  await new Promise((r) => setTimeout(r, 200));
  const t0 = performance.now();
  await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
  await waitFor(() => ended, `the shell calls on ${workerId}`);
  const seconds = (performance.now() - t0) / 1000;
  sub.unsubscribe();
  console.log(
    `shell_exec \`echo\`, ${label}: ${ok}/${elapsed.length} ok in ${seconds.toFixed(2)} s = ${Math.round(elapsed.length / seconds)} calls/s; ` +
      `per call p50 ${percentile(elapsed, 0.5).toFixed(2)} ms, p99 ${percentile(elapsed, 0.99).toFixed(2)} ms`,
  );
}
