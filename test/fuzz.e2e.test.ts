// Every procedure and subscription driven with generated input (fast-check, seeded), with the
// worker's permissions file in each state an operator or an accident can leave it in; after each
// state the server process must still be up, answer, and have logged no unhandled error.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { WORKER_LINK_PATH, type GatehouseClient } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Cluster, Events, waitUntil, WORKER_TOKEN } from "./support/cluster.js";

const STATES: Record<string, (file: string) => void> = {
  valid: (f) => fs.writeFileSync(f, `{ "*": "ask", "read_file": "allow" }`),
  invalid: (f) => fs.writeFileSync(f, `{ "*": "maybe", "bash": { "ls *": `),
  missing: () => undefined,
  directory: (f) => fs.mkdirSync(f),
  fifo: (f) => execFileSync("mkfifo", [f]),
  // chmod 000 stops everyone but root; a symlink loop cannot be opened by anyone.
  unreadable: (f) => (fs.writeFileSync(f, `{ "*": "ask" }`), fs.chmodSync(f, 0)),
  "symlink loop": (f) => fs.symlinkSync(path.basename(f), f),
};

/** A value that is sometimes one the server knows (a live session or approval id), sometimes anything. */
type Ref = { ref: "session" | "approval" | "scenario"; n: number };
const ref = (kind: Ref["ref"]) => fc.nat().map((n): Ref => ({ ref: kind, n }));
const junk = fc.oneof(fc.string({ maxLength: 40 }), fc.anything({ maxDepth: 2 }));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const str = fc.string({ maxLength: 60 });
const sessionId = fc.oneof(ref("session"), junk);
const approvalId = fc.oneof(ref("approval"), junk);
/** Mostly a pending approval with its own session, so answers reach the gate; else anything. */
const answerTarget = fc.oneof({ weight: 3, arbitrary: fc.nat().map((n) => ({ pair: n })) }, { weight: 1, arbitrary: fc.record({ sessionId, approvalId }) });
const workerId = fc.oneof(fc.constantFrom("w1", "w2", "w3"), junk);
const mode = fc.oneof(fc.constantFrom("default", "accept-edits", "read-only", "yolo", "strict"), junk);
const tool = fc.oneof(fc.constantFrom("read_file", "write_file", "edit_file", "shell_exec", "glob", "grep", "task"), str);
const args = fc.oneof(
  fc.record({ path: fc.oneof(str, fc.constantFrom(".env", "../x", "/etc/passwd", "")) }),
  fc.record({ command: fc.oneof(str, fc.constantFrom("ls; rm -rf /", "$(x)", "bash -c 'y'")) }),
  fc.dictionary(str, fc.anything({ maxDepth: 2 })),
);
const toolDescriptor = fc.record({
  name: str,
  description: str,
  tier: fc.oneof(fc.constantFrom("read", "write", "exec"), junk),
  inputSchema: fc.object({ maxDepth: 1 }),
});

/** Mostly a well-formed value, sometimes anything. */
const often = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: a }, { weight: 1, arbitrary: junk });

function answer<T extends Record<string, fc.Arbitrary<unknown>>>(rest: T) {
  return fc.tuple(answerTarget, fc.record(rest)).map(([target, fields]) => ({ ...target, ...fields }));
}

const PROCEDURES = {
  "session.create": fc.record({
    workerId,
    agent: maybe(fc.oneof(fc.constantFrom("general", "explore"), str)),
    mode: maybe(mode),
    model: maybe(fc.oneof(fc.constantFrom("scripted", "openai:x", "nope:y"), str)),
    scenario: maybe(fc.oneof(ref("scenario"), str)),
  }),
  "session.list": fc.constant(undefined),
  "session.get": fc.record({ sessionId }),
  "session.setMode": fc.record({ sessionId, mode }),
  "session.shell": fc.record({ sessionId, command: fc.oneof(fc.constantFrom("echo fuzz", "true", ""), fc.anything({ maxDepth: 1 })) }),
  "agent.prompt": fc.record({ sessionId, text: fc.oneof(str, junk) }),
  "agent.abort": fc.record({ sessionId }),
  "tool.approve": answer({
    always: maybe(often(fc.boolean())),
    scope: maybe(often(fc.constantFrom("once", "session", "always"))),
    pattern: fc.option(often(fc.constantFrom("*", "**", "echo *", "git push *")), { nil: undefined, freq: 4 }),
    editedArguments: fc.option(fc.oneof(args, junk), { nil: undefined, freq: 4 }),
    confirmCritical: maybe(often(fc.boolean())),
  }),
  "tool.deny": answer({ feedback: maybe(str), mode: maybe(often(fc.constantFrom("soft", "hard"))) }),
  "tool.view": fc.record({ sessionId, approvalId }),
  "tool.checkEdit": fc.record({ sessionId, approvalId, editedArguments: fc.oneof(args, junk) }),
  "permissions.get": fc.record({ workerId }),
  "auth.whoami": fc.oneof(fc.constant(undefined), junk),
  "workers.list": fc.oneof(fc.constant(undefined), junk),
  "permissions.explain": fc.record({ workerId, sessionId: maybe(sessionId), tool, args, mode: maybe(mode) }),
  "audit.query": fc.oneof(
    fc.record({
      sessionId: maybe(sessionId),
      workerId: maybe(workerId),
      action: maybe(fc.oneof(fc.constantFrom("allow", "ask", "approved"), str)),
      since: maybe(fc.oneof(fc.constantFrom("2026-01-01T00:00:00Z", "yesterday"), str)),
      limit: maybe(fc.oneof(fc.integer({ min: -5, max: 200_000 }), junk)),
    }),
    junk,
  ),
  "agent.onEvents": fc.oneof(fc.record({ sessionId: maybe(sessionId), lastEventId: maybe(fc.oneof(fc.constantFrom("0", "-1", "1e9", "NaN"), str)) }), junk),
  "worker.register": fc.record({ workerId, workDir: fc.oneof(fc.constant("/tmp"), str), tools: fc.oneof(fc.array(toolDescriptor, { maxLength: 3 }), junk) }),
  "worker.result": fc.record({ workerId, requestId: fc.oneof(str, junk), ok: fc.oneof(fc.boolean(), junk), output: fc.oneof(str, junk) }),
  "worker.heartbeat": fc.record({ workerId }),
  "worker.onToolRequests": fc.record({ workerId: fc.oneof(fc.constantFrom("w2", "w3"), junk) }),
} as const;

type Name = keyof typeof PROCEDURES;
const QUERIES: readonly Name[] = [
  "session.list",
  "session.get",
  "tool.view",
  "tool.checkEdit",
  "permissions.get",
  "permissions.explain",
  "audit.query",
  "auth.whoami",
  "workers.list",
];
const ANSWERS: readonly Name[] = ["tool.approve", "tool.deny", "tool.view", "tool.checkEdit"];
const call = fc.oneof(
  ...(Object.keys(PROCEDURES) as Name[]).map((name) => ({
    weight: ANSWERS.includes(name) ? 4 : 1,
    arbitrary: PROCEDURES[name].map((input) => ({ name, input })),
  })),
);

let cluster: Cluster;
let admin: GatehouseClient;
let all: Events;
let worker: GatehouseClient;
const pool = { session: [] as string[], approval: [] as string[], scenario: [] as string[], pairs: [] as { sessionId: string; approvalId: string }[] };

function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (typeof value !== "object" || value === null) return value;
  if ("pair" in value) {
    const { pair, ...rest } = value as { pair: number };
    return { ...(pool.pairs[pair % pool.pairs.length] ?? {}), ...(resolve(rest) as object) };
  }
  if ("ref" in value && "n" in value && Object.keys(value).length === 2) {
    const list = pool[(value as Ref).ref];
    return list.length ? list[(value as Ref).n % list.length] : "none";
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
}

/** Calls one procedure and ignores its answer: an error answer is what bad input should get. */
async function invoke(name: Name, input: unknown): Promise<void> {
  const [group, proc] = name.split(".") as [string, string];
  const client = group === "worker" ? worker : admin;
  const target = (client as unknown as Record<string, Record<string, Record<string, (i: unknown, o?: unknown) => unknown>>>)[group]![proc]!;
  if (proc === "onEvents" || proc === "onToolRequests") {
    const sub = target.subscribe!(input, { onData: () => undefined, onError: () => undefined }) as { unsubscribe(): void };
    await new Promise((r) => setTimeout(r, 15));
    sub.unsubscribe();
    return;
  }
  const run = QUERIES.includes(name) ? target.query! : target.mutate!;
  await Promise.resolve(run(input)).catch(() => undefined);
}

async function serverAnswers(): Promise<void> {
  expect(cluster.server.exitCode).toBeNull();
  expect(Array.isArray(await admin.session.list.query())).toBe(true);
  expect(cluster.serverLog.filter((l) => /unhandled error|a procedure failed/.test(l))).toEqual([]);
}

/** A session whose turn asks three times: live approvals for the generated answers to hit. */
async function askingSession(): Promise<void> {
  const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
  const scenario = cluster.scenario(`asks-${pool.scenario.length}`, [
    { toolCalls: [shell("echo one"), shell("echo two"), shell("echo three")] },
    { text: "done" },
  ]);
  pool.scenario.push(scenario);
  const s = await admin.session.create.mutate({ workerId: "w1", scenario, mode: "default" });
  pool.session.push(s.id);
  const events = new Events(admin, { sessionId: s.id });
  await admin.agent.prompt.mutate({ sessionId: s.id, text: "go" });
  await waitUntil(() => events.of("tool_approval_required").length >= 3, 10_000, "three approvals");
  pool.approval.push(...events.of("tool_approval_required").map((e) => e.approvalId));
  pool.pairs.splice(0, pool.pairs.length, ...events.of("tool_approval_required").map((e) => ({ sessionId: e.sessionId, approvalId: e.approvalId })));
  events.close();
}

beforeAll(async () => {
  cluster = await Cluster.start({ rules: `{ "*": "ask" }`, config: { limits: { requestsPerSecond: 100_000 } } });
  admin = cluster.client();
  all = new Events(admin, {});
  worker = createNodeClient({ url: cluster.url, token: WORKER_TOKEN, retryDelayMs: () => 100 });
  cluster.clients.push(worker);
}, 30_000);

afterAll(async () => {
  await cluster.stop();
});

describe("a server no input can end", () => {
  let seed = 20261122;
  for (const [state, make] of Object.entries(STATES)) {
    it(`every procedure with generated input, permissions file ${state}`, async () => {
      const file = cluster.rulesFile;
      fs.rmSync(file, { recursive: true, force: true });
      make(file);
      await askingSession();
      const answeredBefore = all.of("tool_approval_resolved").filter((e) => e.by === "ada").length;
      await fc.assert(
        fc.asyncProperty(call, async ({ name, input }) => {
          await invoke(name, resolve(input));
        }),
        { seed: seed++, numRuns: 80 },
      );
      await serverAnswers();
      // The generated answers reached the gate: some were applied, not all refused as malformed.
      const answered = all.of("tool_approval_resolved").filter((e) => e.by === "ada");
      expect(answered.length).toBeGreaterThan(answeredBefore);
    }, 60_000);
  }

  it("the worker link with generated messages", async () => {
    const link = new WebSocket(`${cluster.url}${WORKER_LINK_PATH}`, { headers: { authorization: `Bearer ${WORKER_TOKEN}` } });
    await new Promise((r) => link.once("open", r));
    link.on("message", () => undefined);
    const message = fc.oneof(
      fc.record({ type: fc.constant("register"), registration: fc.oneof(PROCEDURES["worker.register"], junk) }),
      fc.record({
        type: fc.constant("result"),
        requestId: fc.oneof(str, junk),
        ok: fc.oneof(fc.boolean(), junk),
        output: fc.oneof(str, junk),
        exitCode: fc.oneof(fc.integer(), junk),
      }),
      fc.record({ type: fc.constant("tools"), tools: fc.oneof(fc.array(toolDescriptor, { maxLength: 3 }), junk) }),
      fc.record({ type: fc.constantFrom("heartbeat", "launch", "") }),
      junk,
    );
    await fc.assert(
      fc.asyncProperty(message, async (m) => {
        if (link.readyState === WebSocket.OPEN) link.send(typeof m === "string" ? m : JSON.stringify(m));
        await new Promise((r) => setTimeout(r, 2));
      }),
      { seed: 20261123, numRuns: 200 },
    );
    link.close();
    await serverAnswers();
  });

  it("frames before a token are small; junk frames get errors; the server still answers", async () => {
    const raw = new WebSocket(`${cluster.url}?connectionParams=1`);
    await new Promise((r) => raw.once("open", r));
    const closed = new Promise<number>((r) => raw.once("close", (code) => r(code)));
    raw.send("x".repeat(64 * 1024));
    expect(await closed).toBe(1009);
    const junkSocket = new WebSocket(cluster.url);
    await new Promise((r) => junkSocket.once("open", r));
    for (const frame of [
      "{",
      "null",
      "[]",
      '{"id":1,"method":"query","params":{"path":"session.list"}}',
      '{"id":null,"method":"subscription.stop"}',
      "\u0000\uffff",
    ])
      junkSocket.send(frame);
    await new Promise((r) => setTimeout(r, 200));
    junkSocket.close();
    await serverAnswers();
  });
});

it("the fuzz table names every procedure of the router", async () => {
  const { createAppRouter } = await import("@gatehouse/protocol/router");
  const router = createAppRouter({} as never);
  expect(Object.keys(router._def.procedures).sort()).toEqual(Object.keys(PROCEDURES).sort());
});
