import { loadShellParser } from "@gatehouse/policy";
import { afterAll, describe, expect, it } from "vitest";
import { EVERYDAY_COMMANDS, EVERYDAY_RULES, PUBLISHED_ASKS, PUBLISHED_COMMANDS, PUBLISHED_RULES, WRAPPED_COMMANDS, WRAPPED_RULES } from "./corpus/everyday.js";
import { CWD, decideShell, HOME, rules, Tally } from "./support/shell-corpus.js";

await loadShellParser();

const EVERYDAY = rules(EVERYDAY_RULES);
const COMMANDS = EVERYDAY_COMMANDS;
const WRAPPED = rules(WRAPPED_RULES);

const tally = new Tally("everyday allowed");
afterAll(() => tally.flush());

describe("everyday command lines stay allowed", () => {
  it("has at least 200 of them", () => expect(COMMANDS.length).toBeGreaterThanOrEqual(200));
  it.each(COMMANDS)("%j", (command) => {
    const got = decideShell(command, { layers: EVERYDAY, cwd: CWD, home: HOME });
    tally.record(command, "EVERYDAY", "allow", got, "everyday");
    expect(got.action, got.reason).toBe("allow");
  });
});

const PUBLISHED = rules(PUBLISHED_RULES);

describe("published command lines under an allow-list of their programs", () => {
  it("has at least 150 of them", () => expect(PUBLISHED_COMMANDS.length).toBeGreaterThanOrEqual(150));
  it.each(PUBLISHED_COMMANDS.filter((c) => !PUBLISHED_ASKS.has(c)))("%j", (command) => {
    const got = decideShell(command, { layers: PUBLISHED, cwd: CWD, home: HOME });
    tally.record(command, "PUBLISHED", "allow", got, "everyday");
    expect(got.action, got.reason).toBe("allow");
  });
});

describe("a wrapper named with its program in the rule", () => {
  it.each(WRAPPED_COMMANDS)("%j", (command) => {
    const got = decideShell(command, { layers: WRAPPED, cwd: CWD, home: HOME });
    tally.record(command, "WRAPPED", "allow", got, "everyday");
    expect(got.action, got.reason).toBe("allow");
  });
});

// Inline code of an interpreter is code the gate cannot read, and xargs hands a reader files nobody
// wrote down: these ask even where the programs are allowed.
const ASKS_BY_DESIGN = [
  "find src -type f | xargs grep -l TODO",
  "node -e 'console.log(process.version)'",
  "node -p 'require(\"./package.json\").version'",
  "python3 -c 'import sys; print(sys.version)'",
];

describe("what asks by design, even where the programs are allowed", () => {
  it.each(ASKS_BY_DESIGN)("%j asks", (command) => {
    expect(decideShell(command, { layers: EVERYDAY, cwd: CWD, home: HOME }).action).toBe("ask");
  });
});
