import type { AgentDefinition, ToolDescriptor } from "@gatehouse/protocol";

export const TASK_TOOL = "task";

/** The server-side `task` tool, describing the agent types the model may start. */
export function taskTool(agents: readonly AgentDefinition[]): ToolDescriptor {
  const list = agents.map((a) => `- ${a.name}: ${a.description}`).join("\n");
  return {
    name: TASK_TOOL,
    tier: "exec",
    description:
      "Start a subagent on a self-contained piece of work. It works alone with its own tools and rules, " +
      `and its final answer is this call's result. Agent types:\n${list}`,
    inputSchema: {
      type: "object",
      properties: {
        agent: { type: "string", enum: agents.map((a) => a.name), description: "The agent type." },
        prompt: { type: "string", description: "What the subagent should do and what it should answer with." },
        description: { type: "string", description: "A few words saying what the task is for." },
      },
      required: ["agent", "prompt"],
      additionalProperties: false,
    },
  };
}
