// Turns: the model's steps, the calls of each batch through the gate to a worker, subagents, and what
// the model is sent (history, compaction, providers).
export { AgentRunner } from "./agent-runner.js";
export { AgentLayers, agentNames, agentsOf, findAgent, maySpawn } from "./agents.js";
export { contextWindow } from "./context-windows.js";
export { Models, ScenarioBook } from "./models.js";
export { loadScenario, parseScenario, type Scenario, ScriptedProvider } from "./providers/scripted.js";
export { patchSession } from "./session-updates.js";
export { Subagents } from "./subagents.js";
export { systemPrompt } from "./system-prompt.js";
export { taskTool } from "./task-tool.js";
