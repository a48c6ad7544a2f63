import type { Message } from "@gatehouse/protocol";
import { describe, expect, it } from "vitest";
import { modelHistory } from "../../src/runner/model-history.js";

const call = (callId: string) => ({ callId, toolName: "read_file", arguments: "{}" });

describe("the history a model is sent", () => {
  it("cuts a tool result over the limit and says how much was cut; the stored history keeps it whole", () => {
    const stored: Message[] = [
      { role: "user", text: "read it" },
      { role: "assistant", text: "", toolCalls: [call("c1")] },
      { role: "tool", callId: "c1", toolName: "read_file", content: "x".repeat(1000), isError: false },
    ];
    const sent = modelHistory(stored, 100);
    expect(sent[2]).toMatchObject({ role: "tool", content: `${"x".repeat(100)}\n[... cut: 900 of 1000 characters not shown]` });
    expect((stored[2] as { content: string }).content).toHaveLength(1000);
  });

  it("leaves results within the limit alone", () => {
    const stored: Message[] = [
      { role: "assistant", text: "", toolCalls: [call("c1")] },
      { role: "tool", callId: "c1", toolName: "read_file", content: "short", isError: false },
    ];
    expect(modelHistory(stored, 100)).toEqual(stored);
  });

  it("answers calls an aborted turn left without a result, so the next request is accepted", () => {
    const stored: Message[] = [
      { role: "assistant", text: "two reads", toolCalls: [call("c1"), call("c2")] },
      { role: "tool", callId: "c1", toolName: "read_file", content: "one", isError: false },
      { role: "user", text: "never mind" },
    ];
    const sent = modelHistory(stored, 100);
    expect(sent.map((m) => m.role)).toEqual(["assistant", "tool", "tool", "user"]);
    expect(sent[2]).toMatchObject({ callId: "c2", isError: true, content: expect.stringContaining("not run") });
  });

  it("gives a history that grows step by step the same answer as one read whole", () => {
    const grows: Message[] = [];
    const steps: Message[] = [
      { role: "user", text: "go" },
      { role: "assistant", text: "", toolCalls: [call("c1"), call("c2")] },
      { role: "tool", callId: "c1", toolName: "read_file", content: "y".repeat(300), isError: false },
      { role: "user", text: "stop and do this instead" },
      { role: "assistant", text: "", toolCalls: [call("c3")] },
      { role: "tool", callId: "c3", toolName: "read_file", content: "z", isError: false },
      { role: "assistant", text: "done", toolCalls: [] },
    ];
    for (const m of steps) {
      grows.push(m);
      expect(modelHistory(grows, 100)).toEqual(modelHistory([...grows], 100));
    }
    expect(modelHistory(grows, 50)).toEqual(modelHistory([...grows], 50));
    grows.length = 2;
    expect(modelHistory(grows, 100)).toEqual(modelHistory([...grows], 100));
  });
});
