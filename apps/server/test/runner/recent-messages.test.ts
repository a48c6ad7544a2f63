import { silentLog } from "@gatehouse/log";
import type { Message } from "@gatehouse/protocol";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { AgentRunner } from "../../src/runner/agent-runner.js";
import { ApprovalGate } from "../../src/gate/approval-gate.js";
import type { ModelRequest, Provider } from "../../src/runner/providers/provider.js";
import { parseScenario, ScriptedProvider } from "../../src/runner/providers/scripted.js";
import { RecentMessages } from "../../src/runner/recent-messages.js";
import type { Store } from "../../src/store/store.js";
import { Subagents } from "../../src/runner/subagents.js";
import { gateFixture } from "../in-process.js";

let f: ReturnType<typeof gateFixture>;
beforeAll(() => ApprovalGate.ready());
afterEach(() => f?.close());

const user = (text: string): Message => ({ role: "user", text });

describe("messages of a session's last turn", () => {
  it("a history read back takes the objects it had where the messages are the same, up to the first that differs", () => {
    const recent = new RecentMessages();
    const kept = [user("a"), { role: "assistant" as const, text: "", toolCalls: [{ callId: "c", toolName: "t", arguments: "{}" }] }, user("b")];
    recent.keep("s1", kept);
    const read = recent.reuse("s1", [...structuredClone(kept.slice(0, 2)), user("B"), user("c")]);
    expect(read.map((m, i) => m === kept[i])).toEqual([true, true, false, false]);
    expect(recent.reuse("s2", structuredClone(kept)).some((m, i) => m === kept[i])).toBe(false);
  });

  it("a turn's first request gives the model the same message objects as the turn before, though the store hands out copies", async () => {
    f = gateFixture(`{ "*": "allow" }`);
    f.serveWorker(() => ({ ok: true, output: "x" }));
    const scripted = new ScriptedProvider(
      parseScenario(
        JSON.stringify({ name: "t", steps: [{ text: "go", toolCalls: [{ tool: "read_file", args: { path: "a" } }] }, { text: "done" }, { text: "again" }] }),
        "t.json",
      ),
    );
    const sent: Message[][] = [];
    const provider: Provider = { name: "recorder", respond: (req: ModelRequest) => (sent.push(req.history), scripted.respond(req)) };
    // A store that, like a database, hands out new objects each time it is read.
    const store = new Proxy(f.store, {
      get: (target, key: keyof Store) =>
        key === "messages" ? async (id: string) => structuredClone(await target.messages(id)) : (target[key] as (...a: unknown[]) => unknown).bind(target),
    });
    const runner = new AgentRunner({
      store,
      hub: f.hub,
      gate: f.gate,
      registry: f.registry,
      subagents: new Subagents({ store, hub: f.hub, registry: f.registry, openModel: () => undefined }),
      log: silentLog,
      providerFor: () => provider,
      toolsFor: async (s) => f.registry.get(s.workerId)?.tools ?? [],
      maxSteps: 5,
      toolTimeoutMs: 5000,
      maxToolResultChars: 1000,
      systemPrompt: () => "test",
      whenWorkerOnline: async () => undefined,
    });
    const s = f.session();
    expect(await runner.runTurn(s, "first", new AbortController())).toBe("completed");
    expect(await runner.runTurn(s, "second", new AbortController())).toBe("completed");
    const [before, after] = [sent[1]!, sent[2]!];
    expect(after.length).toBe(before.length + 2);
    expect(before.every((m, i) => m === after[i])).toBe(true);
  });
});
