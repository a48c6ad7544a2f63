import type { AgentDefinition, SkillInfo } from "@gatehouse/protocol";

export interface PromptFacts {
  workDir: string;
  agent: AgentDefinition | undefined;
  skills: readonly SkillInfo[];
}

/** What a session's model is told before its history: where it works, as which agent, with which skills. */
export function systemPrompt(facts: PromptFacts): string {
  const parts = [
    `You are an agent working in ${facts.workDir}. Every tool call passes an approval gate: a call may be denied, and a denial's message says why.`,
  ];
  if (facts.agent?.prompt) parts.push(facts.agent.prompt);
  if (facts.skills.length > 0) {
    const list = facts.skills.map((s) => `- ${s.name}: ${s.description || "(no description)"}`).join("\n");
    parts.push(`Skills you can load with the skill tool (load one before you follow it):\n${list}`);
  }
  return parts.join("\n\n");
}
