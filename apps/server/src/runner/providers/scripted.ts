import { readRegularFile } from "@gatehouse/policy/node";
import { boundedDepth, MAX_JSON_DEPTH, textNestsDeeperThan, nestedTooDeep, type Message } from "@gatehouse/protocol";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { GatehouseError } from "../../errors.js";
import { NO_USAGE, type ModelRequest, type ModelResponse, type Provider } from "./provider.js";

const Condition = z.object({
  /** The last tool result contains this text. */
  resultContains: z.string().optional(),
  /** The last user message contains this text. */
  userContains: z.string().optional(),
});

const Step = z.object({
  when: Condition.optional(),
  text: z.string().default(""),
  toolCalls: z.array(z.object({ tool: z.string().min(1), args: boundedDepth(z.record(z.string(), z.unknown()), "args").default({}) })).default([]),
});

const Steps = z.array(Step).min(1, "a scenario needs at least one step");

export const Scenario = z.object({
  name: z.string().default("scenario"),
  steps: Steps,
  /** The steps a subagent of each agent type plays when this scenario's session starts one. */
  agents: z.record(z.string(), z.object({ steps: Steps })).default({}),
});
export type Scenario = z.infer<typeof Scenario>;

/**
 * A parser's error without the text it quotes from the file (YAML's lines after the first, JSON's
 * snippet): a client may name any file as its scenario, and must learn only what is wrong where.
 */
function withoutQuote(message: string): string {
  return message
    .split("\n")[0]!
    .replace(/^Unexpected token .*" is not valid JSON$/, "not valid JSON")
    .replace(/:$/, "");
}

/** A scenario's own levels (steps, a step, its calls, a call) above arguments that may nest `MAX_JSON_DEPTH` deep. */
const SCENARIO_DEPTH = MAX_JSON_DEPTH + 8;

/** Reads a scenario from JSON or YAML text, naming the file and field of any problem. */
export function parseScenario(text: string, source: string): Scenario {
  if (textNestsDeeperThan(text, SCENARIO_DEPTH)) throw new GatehouseError("CONFIG", `${source}: the scenario is ${nestedTooDeep(SCENARIO_DEPTH)}`);
  let raw: unknown;
  try {
    raw = source.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new GatehouseError("CONFIG", `${source}: ${withoutQuote((err as Error).message)}`);
  }
  const parsed = Scenario.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "scenario"}: ${i.message}`).join("; ");
    throw new GatehouseError("CONFIG", `${source}: ${issues}`);
  }
  return parsed.data;
}

/** The largest scenario file read: a client may name one, and the server reads it whole. */
const MAX_SCENARIO_BYTES = 1024 * 1024;

export function loadScenario(file: string): Scenario {
  let text: string;
  try {
    text = readRegularFile(file, MAX_SCENARIO_BYTES);
  } catch (err) {
    throw new GatehouseError("CONFIG", `cannot read scenario ${file}: ${(err as Error).message}`);
  }
  return parseScenario(text, file);
}

function lastOf<R extends Message["role"]>(history: Message[], role: R): Extract<Message, { role: R }> | undefined {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.role === role) return history[i] as Extract<Message, { role: R }>;
  return undefined;
}

/**
 * A deterministic model that plays a scenario: each response is the next step whose condition
 * holds. `{{lastResult}}` and `{{lastUser}}` in a step's text are replaced, so a scenario can
 * show what it was told (a denial's feedback, for example).
 */
export class ScriptedProvider implements Provider {
  readonly name = "scripted";
  /** The next step to try; unknown until the first response, when it is found from the history. */
  private position: number | undefined;

  constructor(readonly scenario: Scenario) {}

  /** The step that answers after `position`, given the last tool result and user message; its index, or none. */
  private match(position: number, lastResult: string, lastUser: string): number | undefined {
    for (let i = position; i < this.scenario.steps.length; i++) {
      const w = this.scenario.steps[i]!.when;
      if (w?.resultContains !== undefined && !lastResult.includes(w.resultContains)) continue;
      if (w?.userContains !== undefined && !lastUser.includes(w.userContains)) continue;
      return i;
    }
    return undefined;
  }

  /**
   * Where a session's history leaves the scenario: each answer in it played the step that
   * matched then. So a session carried on by another process (a restart, another instance) goes
   * on where it was.
   */
  private positionAfter(history: Message[]): number {
    let position = 0;
    let lastResult = "";
    let lastUser = "";
    for (const m of history) {
      if (m.role === "tool") lastResult = m.content;
      else if (m.role === "user") lastUser = m.text;
      else position = (this.match(position, lastResult, lastUser) ?? this.scenario.steps.length - 1) + 1;
    }
    return position;
  }

  async respond(req: ModelRequest): Promise<ModelResponse> {
    const lastResult = lastOf(req.history, "tool")?.content ?? "";
    const lastUser = lastOf(req.history, "user")?.text ?? "";
    const at = this.match((this.position ??= this.positionAfter(req.history)), lastResult, lastUser);
    if (at !== undefined) {
      const step = this.scenario.steps[at]!;
      this.position = at + 1;
      const text = step.text.replaceAll("{{lastResult}}", lastResult).replaceAll("{{lastUser}}", lastUser);
      for (const word of text.split(/(?<= )/)) {
        if (req.signal.aborted) throw new GatehouseError("ABORTED", "the model was stopped");
        req.onText(word);
      }
      const toolCalls = step.toolCalls.map((c, i) => ({ callId: `call_${this.position}_${i}`, toolName: c.tool, args: c.args }));
      return { text, toolCalls, stopReason: toolCalls.length > 0 ? "tool-calls" : "stop", usage: NO_USAGE };
    }
    this.position = this.scenario.steps.length;
    const text = "(the scripted scenario has no more steps)";
    req.onText(text);
    return { text, toolCalls: [], stopReason: "stop", usage: NO_USAGE };
  }
}
