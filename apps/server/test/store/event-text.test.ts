import { describe, expect, it } from "vitest";
import { eventFrames, eventFromText, eventText } from "../../src/store/event-text.js";

const frame = (id: string, event: object) => ({ id: 7, jsonrpc: "2.0", result: { type: "data", id, data: { id, data: event } } });

describe("event text", () => {
  it("is made once per event object", () => {
    const event = { type: "tool_result", output: "a" };
    const first = eventText(event);
    expect(first).toBe(JSON.stringify(event));
    expect(eventText(event)).toBe(first);
  });

  it("keeps the stored text of an event read back, instead of making it again", () => {
    const text = '{"type":"tool_result","output":"a"}';
    const event = eventFromText<object>(text);
    expect(event).toEqual({ type: "tool_result", output: "a" });
    expect(eventText(event)).toBe(text);
    expect(eventFrames.encode(frame("3", event))).toBe(JSON.stringify(frame("3", event)));
  });

  it("makes the same frame as JSON, whatever the event holds", () => {
    const tricky = ["\u0000event\u0000", '"\u0000event\u0000"', "$&$'$`$$", "\\", "\u2028", "😀", ""];
    for (const output of tricky) {
      const event = { type: "tool_result", sessionId: "s1", output, nested: { output, list: [output] } };
      eventText(event);
      const message = frame("42", event);
      expect(eventFrames.encode(message)).toBe(JSON.stringify(message));
      expect(JSON.parse(eventFrames.encode(message) as string)).toEqual(message);
    }
  });

  it("encodes messages without a known event text as plain JSON", () => {
    const unknown = frame("1", { type: "never_seen" });
    expect(eventFrames.encode(unknown)).toBe(JSON.stringify(unknown));
    for (const other of [{ id: 1, result: { type: "started" } }, { id: 2, error: { message: "x" } }, null, "text"])
      expect(eventFrames.encode(other)).toBe(JSON.stringify(other));
  });

  it("decodes as JSON", () => {
    expect(eventFrames.decode('{"id":1,"method":"subscription.stop"}')).toEqual({ id: 1, method: "subscription.stop" });
  });
});
