import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LinkLiveness } from "../src/link-liveness.js";

describe("LinkLiveness", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] }));
  afterEach(() => vi.useRealTimers());

  it("gives the link up at three quarters of the server's time-out after the newest acknowledged beat", () => {
    const silent = vi.fn();
    const live = new LinkLiveness(1000, LinkLiveness.now(), silent);
    vi.advanceTimersByTime(500);
    live.acknowledged(LinkLiveness.now() - 100);
    vi.advanceTimersByTime(600);
    expect(live.fresh()).toBe(true);
    expect(silent).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(live.fresh()).toBe(false);
    expect(silent).toHaveBeenCalledOnce();
    live.stop();
  });

  it("is stale at once when it wakes after a freeze, whatever acknowledgements waited meanwhile", () => {
    const silent = vi.fn();
    const live = new LinkLiveness(1000, LinkLiveness.now(), silent);
    const beat = LinkLiveness.now();
    // Five seconds pass and no timer runs: the process was stopped.
    vi.spyOn(performance, "now").mockReturnValue(beat + 5000);
    live.acknowledged(beat);
    expect(live.fresh()).toBe(false);
    live.stop();
  });

  it("ignores an acknowledgement of a beat not sent yet", () => {
    const live = new LinkLiveness(1000, LinkLiveness.now(), () => undefined);
    vi.advanceTimersByTime(700);
    live.acknowledged(LinkLiveness.now() + 10_000);
    vi.advanceTimersByTime(100);
    expect(live.fresh()).toBe(false);
    live.stop();
  });

  it("beats at the worker's own pace, or a quarter of the server's time-out when that is shorter", () => {
    expect(LinkLiveness.beatMs(1000, 5000)).toBe(1000);
    expect(LinkLiveness.beatMs(1000, 1500)).toBe(375);
  });
});
