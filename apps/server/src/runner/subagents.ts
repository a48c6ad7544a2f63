import type { SessionInfo } from "@gatehouse/protocol";
import { agentNames, findAgent, MAX_SUBAGENT_DEPTH, nestsTooDeep } from "./agents.js";
import type { EventHub } from "../store/index.js";
import { depthOf, familyOf } from "../store/index.js";
import { patchSession } from "./session-updates.js";
import type { Store } from "../store/index.js";
import { type CallResult, notRun, toolMessages } from "./tool-messages.js";
import type { WorkerRegistry } from "../workers/index.js";
import { now } from "../clock.js";

export interface SubagentOptions {
  store: Store;
  hub: EventHub;
  registry: WorkerRegistry;
  /** Prepares a child's model (a scripted parent hands down its scenario's part for the agent). */
  openModel: (child: SessionInfo, parent: SessionInfo) => void;
}

/** Child sessions started by the `task` tool: who they are, whose they are, what they answered. */
export class Subagents {
  constructor(private readonly options: SubagentOptions) {}

  depth(session: SessionInfo): Promise<number> {
    return depthOf(this.options.store, session);
  }

  family(sessionId: string): Promise<string[]> {
    return familyOf(this.options.store, sessionId);
  }

  /** Creates the child session a `task` call asks for, or says why it cannot. */
  async start(parent: SessionInfo, args: Record<string, unknown>, id: string): Promise<{ session: SessionInfo; prompt: string } | { error: string }> {
    const worker = this.options.registry.get(parent.workerId);
    const name = typeof args.agent === "string" ? args.agent : "";
    const prompt = typeof args.prompt === "string" ? args.prompt.trim() : "";
    const agent = findAgent(worker, name);
    if (!agent) return { error: `no agent type named "${name}"; the agents are ${agentNames(worker)}` };
    if (!prompt) return { error: "the prompt is empty: say what the subagent should do" };
    if (nestsTooDeep((await this.depth(parent)) + 1)) return { error: `subagents nest at most ${MAX_SUBAGENT_DEPTH} deep` };
    const session: SessionInfo = {
      id,
      workerId: parent.workerId,
      agent: agent.name,
      model: agent.model ?? parent.model,
      mode: parent.mode,
      parentId: parent.id,
      createdAt: now(),
      status: "running",
    };
    try {
      this.options.openModel(session, parent);
    } catch (err) {
      return { error: (err as Error).message };
    }
    await this.options.store.putSession(session);
    await this.options.hub.publish({ type: "session_created", sessionId: session.id, at: now(), session });
    return { session, prompt };
  }

  /** Closes a child whose turn ended and turns its last answer into the `task` call's result. */
  async finish(child: SessionInfo, end: string): Promise<CallResult> {
    await patchSession(this.options.store, child.id, { status: "closed" });
    const answer = (await this.options.store.messages(child.id)).findLast((m) => m.role === "assistant")?.text.trim() ?? "";
    if (end === "completed") return { ok: true, outcome: "ok", output: answer || `(the ${child.agent} subagent gave no answer)` };
    return notRun(end === "aborted" ? "cancelled" : "failed", toolMessages.subagentEnded(child.agent, child.id, end, answer));
  }
}
