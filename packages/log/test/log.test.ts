import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createLog, LogSettingError } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-log-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.GATEHOUSE_LOG_LEVEL;
  delete process.env.GATEHOUSE_LOG_FORMAT;
});

const lines = (file: string) => fs.readFileSync(file, "utf8").trim().split("\n");

describe("the logger", () => {
  it("writes one JSON object a line, with level, time and fields, away from a terminal", () => {
    const file = path.join(dir, "json.log");
    createLog({ destination: file }).child({ component: "server" }).info("worker connected", { workerId: "w1" });
    expect(JSON.parse(lines(file)[0]!)).toMatchObject({
      level: 30,
      component: "server",
      workerId: "w1",
      msg: "worker connected",
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it("writes a readable line when asked to, and leaves out what is below its level", () => {
    const file = path.join(dir, "pretty.log");
    process.env.GATEHOUSE_LOG_FORMAT = "pretty";
    const log = createLog({ destination: file, level: "warn" });
    log.info("not shown");
    log.warn("refused a worker link", { status: 401 });
    expect(lines(file)).toEqual([expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: refused a worker link {"status":401}$/)]);
  });

  it("refuses a level or a format it does not know, naming the variable", () => {
    process.env.GATEHOUSE_LOG_LEVEL = "loud";
    expect(() => createLog({ destination: path.join(dir, "x.log") })).toThrow(LogSettingError);
    expect(() => createLog({ destination: path.join(dir, "x.log") })).toThrow(
      /GATEHOUSE_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "loud"\)/,
    );
  });
});
