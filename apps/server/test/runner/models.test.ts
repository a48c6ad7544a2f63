import { describe, expect, it } from "vitest";
import { ServerConfig } from "../../src/config/config.js";
import { resolveEndpoint, splitModelId } from "../../src/runner/models.js";

const config = (over: Record<string, unknown> = {}) => ServerConfig.parse(over);

describe("which endpoint a model id names", () => {
  it("splits provider:model at the first colon", () => {
    expect(splitModelId("ollama:qwen2.5-coder:7b")).toEqual({ provider: "ollama", model: "qwen2.5-coder:7b" });
    expect(() => splitModelId("gpt-4o")).toThrow(/provider:model/);
  });

  it("uses the built-in table, with the key from the variable it names", () => {
    expect(resolveEndpoint("openai:gpt-4o", config(), { OPENAI_API_KEY: "sk-1" })).toEqual({
      api: "openai-compatible",
      provider: "openai",
      model: "gpt-4o",
      baseURL: "https://api.openai.com/v1",
      apiKey: "sk-1",
    });
    expect(resolveEndpoint("ollama:llama3", config(), {})).toMatchObject({ baseURL: "http://127.0.0.1:11434/v1", apiKey: undefined });
  });

  it("says which variable is missing when a key is needed", () => {
    expect(() => resolveEndpoint("anthropic:claude-sonnet-4-5", config(), {})).toThrow(
      "model anthropic:claude-sonnet-4-5 needs an API key in the environment variable ANTHROPIC_API_KEY, which is not set",
    );
  });

  it("takes providers from the config file, and a base URL and key variable for the default model", () => {
    const c = config({
      model: "box:qwen",
      baseURL: "http://10.0.0.5:8000/v1",
      apiKeyEnv: "BOX_KEY",
      providers: { lab: { api: "anthropic", baseURL: "http://lab/v1", apiKeyEnv: "LAB_KEY" } },
    });
    expect(resolveEndpoint("box:qwen", c, { BOX_KEY: "k" })).toMatchObject({ api: "openai-compatible", baseURL: "http://10.0.0.5:8000/v1", apiKey: "k" });
    expect(resolveEndpoint("lab:claude", c, { LAB_KEY: "l" })).toMatchObject({ api: "anthropic", baseURL: "http://lab/v1", apiKey: "l" });
    expect(() => resolveEndpoint("nowhere:m", c, {})).toThrow(/unknown model provider "nowhere".*known: openai, anthropic/);
  });
});
