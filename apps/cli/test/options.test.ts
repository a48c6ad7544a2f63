import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { CliError } from "../src/cli-error.js";
import { addOptions, readOptions, usageTerms, type OptionTable } from "../src/options.js";

const TABLE = {
  server: { value: "URL", help: "the server", required: true },
  token: { value: "TOKEN", help: "a token", env: "T_TOKEN", required: true },
  sandbox: { value: "MODE", help: "confinement", choices: ["required", "auto", "off"], env: "T_SANDBOX" },
  port: { value: "N", help: "a port", env: "T_PORT", parse: (text: string) => Number(text) },
  protect: { value: "DIR", help: "a path", multiple: true },
  "allow-plain": { help: "plain ws://", env: "T_PLAIN" },
} as const satisfies OptionTable;

function parse(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const command = new Command("t").exitOverride();
  addOptions(command, TABLE);
  command.parse(argv, { from: "user" });
  return readOptions(command, TABLE, env);
}

describe("an option table", () => {
  it("reads flags, else their variables; a flag wins over its variable", () => {
    expect(parse(["--server", "ws://a", "--token", "flag", "--port", "7", "--protect", "a", "--protect", "b"], { T_TOKEN: "env" })).toEqual({
      server: "ws://a",
      token: "flag",
      sandbox: undefined,
      port: 7,
      protect: ["a", "b"],
      "allow-plain": undefined,
    });
    expect(parse(["--server", "ws://a"], { T_TOKEN: "env", T_PORT: "9", T_SANDBOX: "off" })).toMatchObject({ token: "env", port: 9, sandbox: "off" });
  });

  it("turns a switch on from its variable only at 1, and treats an empty variable as unset", () => {
    expect(parse(["--server", "s", "--token", "t"], { T_PLAIN: "1" })["allow-plain"]).toBe(true);
    expect(parse(["--server", "s", "--token", "t"], { T_PLAIN: "0" })["allow-plain"]).toBe(false);
    expect(() => parse(["--server", "s"], { T_TOKEN: "" })).toThrow(new CliError("missing --token TOKEN (or T_TOKEN)"));
  });

  it("names the flag or the variable a bad value came from", () => {
    expect(() => parse(["--server", "s", "--token", "t", "--sandbox", "maybe"])).toThrow('--sandbox must be one of required, auto, off (got "maybe")');
    expect(() => parse(["--server", "s", "--token", "t"], { T_SANDBOX: "maybe" })).toThrow('T_SANDBOX must be one of required, auto, off (got "maybe")');
  });

  it("writes the usage line from the same table", () => {
    expect(usageTerms(TABLE, ["[FILE]"])).toBe("--server URL --token TOKEN [--sandbox MODE] [--port N] [--protect DIR]... [--allow-plain] [FILE]");
  });
});
