import { evaluate, parseRulesOrThrow, Ruleset } from "@gatehouse/policy";
import type { Decision, GatehouseEvent } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { TurnPrinter } from "../src/turn-printer.js";

const RULES = new Ruleset(parseRulesOrThrow(`{ "*": "ask", "read_file": "allow" }`, { file: "/rules/permissions.jsonc", home: "/home/ada" }));

function decided(tool: string, mode: Decision["mode"]): Decision {
  return evaluate({ tool, args: { path: "a.txt", agent: "explore", prompt: "x" } }, { layers: { static: RULES }, cwd: "/work", home: "/home/ada", mode });
}

function started(decision: Decision | null): string[] {
  const lines: string[] = [];
  const printer = new TurnPrinter((line) => lines.push(line), false, "s1");
  const at = new Date().toISOString();
  const e = { type: "tool_call_started", sessionId: "s1", at, callId: "c1", toolName: "task", arguments: "{}", decision } as GatehouseEvent;
  printer.print("1", e);
  return lines;
}

describe("the line of a call that starts, in run", () => {
  it("names the rule that allowed it", () => {
    expect(started(decided("read_file", "default"))).toEqual(['→ task (allowed by static rule read_file "*" (/rules/permissions.jsonc:1:15))']);
  });

  it("names the mode that allowed what the rules asked about, and the rule that asked", () => {
    expect(started(decided("task", "yolo"))).toEqual(['→ task (allowed by yolo mode; the rules said ask: static rule * "*" (/rules/permissions.jsonc:1:3))']);
  });

  it("says a person approved a call that came with no rule", () => {
    expect(started(null)).toEqual(["→ task (approved)"]);
  });
});
