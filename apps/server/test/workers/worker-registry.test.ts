import { silentLog } from "@gatehouse/log";
import { afterEach, describe, expect, it } from "vitest";
import { WorkerRegistry } from "../../src/workers/worker-registry.js";

const registration = { workerId: "w1", workDir: "/tmp", tools: [], agents: [], skills: [] };
const events = { connected: () => undefined, disconnected: () => undefined };
let registry: WorkerRegistry | undefined;
afterEach(() => registry?.close());

describe("one connection per worker id", () => {
  it("refuses a second connection for an online worker, and leaves the first serving", () => {
    registry = new WorkerRegistry(events, silentLog, 5000, false);
    registry.register(registration);
    let firstEnded = false;
    registry.attach(
      "w1",
      () => undefined,
      () => (firstEnded = true),
    );
    expect(() => registry!.register({ ...registration, workDir: "/elsewhere" })).toThrow(
      /worker w1 is already connected; a second connection for it is refused/,
    );
    expect(() => registry!.attach("w1", () => undefined)).toThrow(/already connected/);
    expect(firstEnded).toBe(false);
    expect(registry.get("w1")).toMatchObject({ workDir: "/tmp", connected: true });
  });

  it("replaces the first connection when the setting says so", () => {
    registry = new WorkerRegistry(events, silentLog, 5000, true);
    registry.register(registration);
    let firstEnded = false;
    registry.attach(
      "w1",
      () => undefined,
      () => (firstEnded = true),
    );
    registry.register({ ...registration, workDir: "/elsewhere" });
    registry.attach("w1", () => undefined);
    expect(firstEnded).toBe(true);
    expect(registry.get("w1")).toMatchObject({ workDir: "/elsewhere", connected: true });
  });
});
